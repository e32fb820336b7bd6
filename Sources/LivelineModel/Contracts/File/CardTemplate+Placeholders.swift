extension CardTemplate {
    /// One piece of a card text: literal text, or a placeholder.
    enum Segment: Hashable {
        case text(String)
        /// `{key}`: a content-state key.
        case contentState(String)
        /// `{attributes.key}`: a static attribute.
        case attribute(String)
    }

    /// The pieces of `text`, and the first thing wrong with its braces (nil when none): an
    /// unclosed or empty placeholder, or a `{` inside one. A faulty placeholder is kept as text.
    static func segments(of text: String) -> (segments: [Segment], problem: String?) {
        var segments: [Segment] = []
        var literal = ""
        var problem: String?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            guard character == "{" else {
                literal.append(character)
                index = next
                continue
            }
            if next < text.endIndex, text[next] == "{" {
                literal.append("{")
                index = text.index(after: next)
                continue
            }
            let rest = text[next...]
            guard let close = rest.firstIndex(where: { $0 == "}" || $0 == "{" }), text[close] == "}" else {
                problem =
                    problem
                    ?? "'{' at character \(text.distance(from: text.startIndex, to: index) + 1) opens a placeholder that is not closed; write {{ for a literal brace"
                literal.append(character)
                index = next
                continue
            }
            let name = String(text[next..<close])
            if name.isEmpty || name == "attributes." {
                problem = problem ?? "'{\(name)}' names no key; expected {key} for a content-state key or {attributes.key} for an attribute"
                literal += "{\(name)}"
            } else {
                if !literal.isEmpty { segments.append(.text(literal)) }
                literal = ""
                segments.append(name.hasPrefix("attributes.") ? .attribute(String(name.dropFirst("attributes.".count))) : .contentState(name))
            }
            index = text.index(after: close)
        }
        if !literal.isEmpty { segments.append(.text(literal)) }
        return (segments, problem)
    }
}
