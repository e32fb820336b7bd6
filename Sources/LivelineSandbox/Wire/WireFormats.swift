import Foundation

/// Checks of the text formats APNs takes in paths and headers.
enum WireFormats {
    /// `8-4-4-4-12` hex digits. Apple documents the canonical lower-case form; upper-case hex is
    /// accepted too (Swift's `UUID().uuidString` is upper-case and APNs takes it).
    ///
    /// Related APNs documentation: "Sending notification requests to APNs" (`spec/apns.md` §1.2),
    /// `apns-id`; a malformed one is `400 BadMessageId`.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return false }
            } else if !isHex(byte) {
                return false
            }
        }
        return true
    }

    /// A device token: hex digits, an even number of them. Apple says to assume no length.
    ///
    /// Related APNs documentation (`spec/apns.md` §1.1, §1.2): the path carries the token as hex.
    static func isDeviceToken(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count % 2 == 0 && bytes.count <= 1024 && bytes.allSatisfy(isHex)
    }

    /// A channel ID: standard base64 with padding of 1 to 64 bytes.
    ///
    /// Related APNs documentation (`spec/apns.md` §1.8): `400 BadChannelId` when the ID is badly
    /// encoded or too long.
    static func isChannelID(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count % 4 == 0, text.utf8.count <= 88,
            let data = Data(base64Encoded: text), !data.isEmpty
        else { return false }
        return true
    }

    /// A topic: dot-separated labels of letters, digits, `-` and `_`.
    static func isTopic(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 255 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }
    }

    /// A new `apns-id`: a random lower-case UUID.
    static func newID() -> String { UUID().uuidString.lowercased() }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
    }
}
