/// "Did you mean …?" for key and type names: the candidates that differ only in case or
/// punctuation, or by a few edits (one per five characters: a typo, a dropped word).
public enum NameSuggestion {
    /// The candidates close to `name`, closest first.
    public static func closest(to name: String, among candidates: [String]) -> [String] {
        let wanted = normalized(name)
        let scored = candidates.compactMap { candidate -> (String, Int)? in
            guard candidate != name else { return nil }
            let other = normalized(candidate)
            if other == wanted { return (candidate, 0) }
            let distance = editDistance(Array(wanted), Array(other))
            let allowed = max(1, min(wanted.count, other.count) / 5)
            if distance <= allowed { return (candidate, distance) }
            if wanted.count >= 4, other.hasPrefix(wanted) || wanted.hasPrefix(other) { return (candidate, 3) }
            return nil
        }
        return scored.sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// Lower case without `-`, `_` and spaces: `content_state` and `contentState` become equal.
    static func normalized(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " })
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
