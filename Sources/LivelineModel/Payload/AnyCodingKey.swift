/// A coding key made at run time: for custom top-level keys and for walking to a key path.
struct AnyCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    /// The key of the element at `index` of an array.
    init(index: Int) {
        self.stringValue = String(index)
        self.intValue = index
    }

    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
