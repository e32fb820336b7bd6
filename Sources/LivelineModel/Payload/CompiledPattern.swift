/// A regular expression compiled once and matched against whole strings, by Unicode scalars (as
/// JSON Schema's `pattern` is matched): the one check of a ``DeepLink`` and of the API's text
/// formats, so what the server takes is exactly what the printed pattern says.
///
/// Unchecked `Sendable`: `Regex<AnyRegexOutput>` is not `Sendable` only because its output holds
/// `Any` values, and no output leaves ``matches(_:)``; the compiled program itself is shared
/// between threads as for any `Regex` of a `Sendable` output.
public struct CompiledPattern: @unchecked Sendable {
    /// The pattern as written.
    public let source: String
    private let regex: Regex<AnyRegexOutput>

    /// `source` must compile (the patterns are constants: a mistake is a programming error, and
    /// every pattern is matched by the tests).
    public init(_ source: String) {
        do {
            regex = try Regex(Self.withoutCaptures(source)).matchingSemantics(.unicodeScalar)
        } catch {
            preconditionFailure("the pattern \(source) does not compile: \(error)")
        }
        self.source = source
    }

    /// `source` with each group `(` made non-capturing `(?:`: the same matches without recording
    /// captures nothing here reads (`docs/performance.md`, "Reads"). Escapes (`\(`) and character
    /// classes (`[()]`) are left as they are.
    static func withoutCaptures(_ source: String) -> String {
        var result = ""
        var inClass = false
        var escaped = false
        var characters = source.makeIterator()
        var next = characters.next()
        while let character = next {
            next = characters.next()
            result.append(character)
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if inClass {
                if character == "]" { inClass = false }
            } else if character == "[" {
                inClass = true
                // A `]` right after `[` (or `[^`) is a member, not the end.
                if next == "^" {
                    result.append("^")
                    next = characters.next()
                }
                if next == "]" {
                    result.append("]")
                    next = characters.next()
                }
            } else if character == "(", next != "?" {
                result.append("?:")
            }
        }
        return result
    }

    /// Whether the pattern matches all of `text`.
    public func matches(_ text: String) -> Bool {
        (try? regex.wholeMatch(in: text)) != nil
    }
}
