#if canImport(Glibc)
import Glibc
#endif

/// The Strings a connection made of the header fields it received last, by their place in the
/// header block. A client sends the same fields in the same order on every request (its
/// authorization token, topic and push type on every push): a field whose bytes are those of last
/// time gets last time's Strings again, with no allocation and no UTF-8 validation. Anything else
/// is decoded as usual and remembered in its place. Only a hint: every reuse compares the bytes.
struct RecentHeaderFields {
    private var fields: [(name: String, value: String)] = []
    private var method = ""
    private var path = ""
    private var authority = ""
    /// The place of the next regular field in the current header block.
    private var position = 0

    /// Fields remembered per block; later ones are decoded every time.
    static let limit = 32

    /// A new header block begins.
    mutating func startBlock() {
        position = 0
    }

    /// A regular field of the current block.
    mutating func field(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> (name: String, value: String) {
        let place = position
        position += 1
        guard place < fields.count else {
            let field = (name: Self.decode(name), value: Self.decode(value))
            if place == fields.count, place < Self.limit { fields.append(field) }
            return field
        }
        let recent = fields[place]
        let sameName = Self.matches(name, recent.name)
        if sameName && Self.matches(value, recent.value) { return recent }
        let field = (name: sameName ? recent.name : Self.decode(name), value: Self.decode(value))
        fields[place] = field
        return field
    }

    mutating func method(_ bytes: UnsafeBufferPointer<UInt8>) -> String { Self.reuse(bytes, &method) }
    mutating func path(_ bytes: UnsafeBufferPointer<UInt8>) -> String { Self.reuse(bytes, &path) }
    mutating func authority(_ bytes: UnsafeBufferPointer<UInt8>) -> String { Self.reuse(bytes, &authority) }

    private static func reuse(_ bytes: UnsafeBufferPointer<UInt8>, _ recent: inout String) -> String {
        if !matches(bytes, recent) { recent = decode(bytes) }
        return recent
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text`'s UTF-8 is `bytes`.
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        guard text.utf8.count == bytes.count else { return false }
        guard let start = bytes.baseAddress, bytes.count > 0 else { return true }
        return text.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, start, bytes.count) == 0 } ?? false
    }
}
