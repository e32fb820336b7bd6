/// Request or response header fields; names compare case-insensitively (stored lower-cased).
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { add(name, value) }
    }

    /// Appends a field; the name is lower-cased.
    public mutating func add(_ name: String, _ value: String) {
        let hasUpper = name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        fields.append((hasUpper ? name.lowercased() : name, value))
    }

    /// The first value of `name`, compared case-insensitively.
    public subscript(_ name: String) -> String? {
        let key = name.lowercased()
        return fields.first { $0.name == key }?.value
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}
