/// One key of a contract's attributes or content state: its name, JSON type and optionality.
public struct ContractField: Sendable, Hashable {
    /// The JSON shape a key must have, as the Swift type decodes it with a default `JSONDecoder`.
    public indirect enum FieldType: Sendable, Hashable, CustomStringConvertible {
        case string
        case int
        case double
        case bool
        /// A Swift `Date`: a JSON number of seconds since 2001-01-01 00:00:00 UTC (the default
        /// `deferredToDate` strategy that ActivityKit decodes with), never ISO text or UNIX time.
        case date
        /// A string enum: the type's name and its raw values.
        case enumeration(name: String, cases: [String])
        case array(FieldType)
        /// A nested object type (e.g. `OpenItem`) and its keys.
        case object(name: String, fields: [ContractField])

        public var description: String {
            switch self {
            case .string: "String"
            case .int: "Int"
            case .double: "Double"
            case .bool: "Bool"
            case .date: "Date"
            case .enumeration(let name, _): name
            case .array(let element): "[\(element)]"
            case .object(let name, _): name
            }
        }

        /// The JSON a value of this type is, in words: "a whole number", "one of a, b".
        public var jsonDescription: String {
            switch self {
            case .string: "a string"
            case .int: "a whole number"
            case .double: "a number"
            case .bool: "true or false"
            case .date: "a number of seconds since 2001-01-01 00:00:00 UTC"
            case .enumeration(_, let cases): "one of \(cases.joined(separator: ", "))"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    /// The JSON key, equal to the Swift property name.
    public var key: String
    public var type: FieldType
    /// Whether the key may be `null` or absent (a Swift optional).
    public var isOptional: Bool
    /// The contract version that added the key; keys added after version 1 must be optional.
    public var since: Int
    /// What the value means, one line.
    public var summary: String

    public init(_ key: String, _ type: FieldType, optional: Bool = false, since: Int = 1, _ summary: String = "") {
        self.key = key
        self.type = type
        self.isOptional = optional
        self.since = since
        self.summary = summary
    }

    /// The type as a person reads it: `String?` for optionals.
    public var typeDescription: String { type.description + (isOptional ? "?" : "") }
}
