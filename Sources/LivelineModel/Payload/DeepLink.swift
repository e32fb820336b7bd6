/// Where a notification takes the app when it is opened: the `link` of `POST /v1/notify`, sent
/// as the top-level `link` key beside `aps` (the app reads `userInfo["link"]`) and in a web
/// push. One form everywhere: a path of the app, such as the meal-planning invitation's
/// `/cook-suggest/cs_…` (`docs/features/cook-suggest.md`, "Invitation").
///
/// The rule: an RFC 3986 `path-absolute` (§3.3) — `/`, then nothing or a first segment that is
/// not empty, so never `//host`, which a browser reads as another host (§4.2) — with an optional
/// `?query` (§3.4) and `#fragment` (§3.5); characters unreserved, sub-delims, `:`, `@`, `/` and `?`
/// where RFC 3986 allows them, anything else percent-escaped (`%HH`). No scheme and no host: a
/// path opens in the app (the iOS app resolves it itself) and, in a browser's notification, on
/// the web app's own origin.
public struct DeepLink: Sendable, Hashable, CustomStringConvertible {
    /// The link as written.
    public let text: String

    /// The regular expression of exactly the valid links (anchored).
    public static let pattern =
        "^/(\(URIPattern.pathCharacter)\(URIPattern.pathOrSlash)*)?(\\?\(URIPattern.queryCharacter)*)?(#\(URIPattern.queryCharacter)*)?$"

    /// What a valid link is, in words (the API's error messages and the document say it so).
    public static let rule =
        "an app path (RFC 3986 path-absolute, e.g. /cook-suggest/cs_abc, with an optional ?query and #fragment; "
        + "not //host, no scheme; other characters percent-escaped)"

    /// Nil unless `text` is a valid link.
    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        self.text = text
    }

    /// Whether `text` is a valid link: it matches ``pattern``.
    public static func isValid(_ text: String) -> Bool { compiled.matches(text) }

    private static let compiled = CompiledPattern(pattern)

    /// The path: the link up to its `?` or `#`.
    public var path: Substring { text.prefix { $0 != "?" && $0 != "#" } }

    /// The path's segments after the leading `/`, as written (percent-escapes kept):
    /// `/cook-suggest/cs_abc` → `["cook-suggest", "cs_abc"]`; `/` → `[]`.
    public var segments: [Substring] {
        let rest = path.dropFirst()
        return rest.isEmpty ? [] : rest.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// The query, without its `?`; nil when there is none.
    public var query: Substring? {
        guard let start = text.firstIndex(of: "?"), text.firstIndex(of: "#").map({ start < $0 }) ?? true else { return nil }
        let rest = text[text.index(after: start)...]
        return rest.prefix { $0 != "#" }
    }

    /// The fragment, without its `#`; nil when there is none.
    public var fragment: Substring? { text.firstIndex(of: "#").map { text[text.index(after: $0)...] } }

    public var description: String { text }
}
