import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and Web Push use it.
///
/// Foundation's base64 codec does the work; the two alphabets differ in two characters (`+/` and
/// `-_`) and in padding, which are swapped on the bytes (a string round trip through `NSString`
/// cost a web push most of its sending time).
public enum Base64URL {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var base64 = Array(Data(bytes).base64EncodedData())
        while base64.last == UInt8(ascii: "=") { base64.removeLast() }
        for index in base64.indices {
            switch base64[index] {
            case UInt8(ascii: "+"): base64[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): base64[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: base64, as: UTF8.self)
    }

    /// Decodes base64url with or without padding; nil when `text` is not base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        var base64 = [UInt8]()
        base64.reserveCapacity(text.utf8.count + 3)
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard padding == 0 else { return nil }  // nothing follows padding
                base64.append(byte)
            case UInt8(ascii: "-"):
                guard padding == 0 else { return nil }
                base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"):
                guard padding == 0 else { return nil }
                base64.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="): padding += 1
            default: return nil
            }
        }
        // Padding, when there is any, is exactly what the length asks for.
        guard base64.count % 4 != 1, padding == 0 || padding == (4 - base64.count % 4) % 4 else { return nil }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(base64)).map { Array($0) }
    }
}
