/// Pieces of RFC 3986 (§2, §3.3, §3.4) as regular expressions, for the patterns of a deep link
/// (``DeepLink``) and of a web push endpoint. Each is one character or one percent-escape, and
/// the alternatives never overlap (`%` starts only an escape), so a repeat of one is matched in
/// linear time by a backtracking engine.
public enum URIPattern {
    /// `pchar`: unreserved, sub-delims, `:` and `@`, or a percent-escape `%HH`.
    public static let pathCharacter = "([A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})"
    /// A `pchar` or `/`: what follows the first character of a path.
    public static let pathOrSlash = "([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})"
    /// What a query (§3.4) or a fragment (§3.5) is made of: `pchar`, `/` and `?`.
    public static let queryCharacter = "([A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})"
}
