/// An enum written in JSON as one of its raw values; any other value fails to decode saying which
/// values there are ("must be one of alert, la-pushToStart, la-update, web-push"), through
/// ``DecodingProblem``, instead of Foundation's "Cannot initialize … from invalid String value".
///
/// Accepts and writes exactly what the standard library's `RawRepresentable` coding does; only the
/// error differs. Every enum of the API bodies and contracts conforms.
public protocol JSONEnum: RawRepresentable, CaseIterable, Codable where RawValue == String {}

extension JSONEnum {
    /// What a valid value is, in words: "one of " and the raw values, in declaration order.
    public static var expectation: String { "one of " + allCases.map(\.rawValue).joined(separator: ", ") }

    public init(from decoder: any Decoder) throws {
        let text: String
        do {
            text = try decoder.singleValueContainer().decode(String.self)
        } catch let error as DecodingError {
            throw error.expecting(Self.expectation, type: Self.self)
        }
        guard let value = Self(rawValue: text) else { throw DecodingError.invalidValue(Self.expectation, at: decoder.codingPath) }
        self = value
    }
}
