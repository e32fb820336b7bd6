import Foundation
import Synchronization

/// Checks of the text formats APNs takes in paths and headers.
enum WireFormats {
    /// `8-4-4-4-12` hex digits. Apple documents the canonical lower-case form; upper-case hex is
    /// accepted too (Swift's `UUID().uuidString` is upper-case and APNs takes it).
    ///
    /// Related APNs documentation: "Sending notification requests to APNs" (`docs/apns.md` §1.2),
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
    /// Related APNs documentation (`docs/apns.md` §1.1, §1.2): the path carries the token as hex.
    static func isDeviceToken(_ text: String) -> Bool {
        let count = text.utf8.count
        guard count > 0, count % 2 == 0, count <= 1024 else { return false }
        return withBytes(of: text) { bytes in
            for byte in bytes where !isHex(byte) { return false }
            return true
        }
    }

    /// A channel ID: standard base64 with padding of 1 to 64 bytes.
    ///
    /// Related APNs documentation (`docs/apns.md` §1.8): `400 BadChannelId` when the ID is badly
    /// encoded or too long.
    static func isChannelID(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count % 4 == 0, text.utf8.count <= 88,
            let data = Data(base64Encoded: text), !data.isEmpty
        else { return false }
        return true
    }

    /// A topic: dot-separated labels of letters, digits, `-` and `_`. Checked eight bytes at a
    /// time.
    static func isTopic(_ text: String) -> Bool {
        let count = text.utf8.count
        guard count > 0, count <= 255 else { return false }
        return withBytes(of: text) { bytes in
            let start = UnsafeRawPointer(bytes.baseAddress!)
            let highBits: UInt64 = 0x8080_8080_8080_8080
            // Whether the byte before is a dot (or there is none: a topic starts with a label).
            var afterDot = true
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                guard word & highBits == 0 else { return false }
                let dots = inRange(word, from: 0x2E, to: 0x2E)
                let allowed =
                    dots | inRange(word, from: 0x30, to: 0x39) | inRange(word, from: 0x41, to: 0x5A) | inRange(word, from: 0x61, to: 0x7A)
                    | inRange(word, from: 0x2D, to: 0x2D) | inRange(word, from: 0x5F, to: 0x5F)
                // Every byte allowed; no dot right after a dot, in this word or across from the last.
                guard allowed == highBits, dots & (dots << 8) == 0, !(afterDot && dots & 0x80 != 0) else { return false }
                afterDot = dots >> 63 != 0
                offset += 8
            }
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: ".") {
                    if afterDot { return false }
                    afterDot = true
                } else if isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") {
                    afterDot = false
                } else {
                    return false
                }
                offset += 1
            }
            return !afterDot
        }
    }

    /// `text` as a device token in lower case (`isDeviceToken`), or nil when it is not one. One
    /// pass, eight bytes at a time; a token already in lower case (as clients send them) is
    /// returned as it is.
    static func lowerCaseDeviceToken(_ text: String) -> String? {
        let count = text.utf8.count
        guard count > 0, count % 2 == 0, count <= 1024 else { return nil }
        let upperCase = withBytes(of: text) { bytes -> Bool? in
            let start = UnsafeRawPointer(bytes.baseAddress!)
            let highBits: UInt64 = 0x8080_8080_8080_8080
            var upperCase = false
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                guard word & highBits == 0 else { return nil }
                let upper = inRange(word, from: 0x41, to: 0x46)
                guard inRange(word, from: 0x30, to: 0x39) | inRange(word, from: 0x61, to: 0x66) | upper == highBits else { return nil }
                if upper != 0 { upperCase = true }
                offset += 8
            }
            while offset < bytes.count {
                let byte = bytes[offset]
                guard isHex(byte) else { return nil }
                if byte < 0x61 && byte > 0x39 { upperCase = true }
                offset += 1
            }
            return upperCase
        }
        guard let upperCase else { return nil }
        return upperCase ? text.lowercased() : text
    }

    /// The high bit of each byte of `word` that lies in `low...high`; every byte of `word` must
    /// be ASCII (below 0x80), so that no sum carries into the next byte.
    @inline(__always)
    private static func inRange(_ word: UInt64, from low: UInt8, to high: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let atLeastLow = word &+ ones &* UInt64(0x80 - low)
        let aboveHigh = word &+ ones &* UInt64(0x7F - high)
        return atLeastLow & ~aboveHigh & (ones &* 0x80)
    }

    /// `text` without `suffix` when it ends with it byte for byte and has something before it;
    /// otherwise nil. For ASCII text (a checked topic), bytes are characters.
    static func prefix(of text: String, beforeSuffix suffix: String) -> String? {
        withBytes(of: text) { bytes in
            withBytes(of: suffix) { end in
                guard bytes.count > end.count,
                    end.isEmpty || memcmp(bytes.baseAddress! + (bytes.count - end.count), end.baseAddress!, end.count) == 0
                else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<(bytes.count - end.count)]), as: UTF8.self)
            }
        }
    }

    /// Calls `body` with `text`'s UTF-8 bytes (contiguous, without copying a native string).
    static func withBytes<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var text = text
        return text.withUTF8(body)
    }

    /// A new `apns-id`: a random-looking (version 4) lower-case UUID, never the same twice in a
    /// process.
    ///
    /// Not Foundation's `UUID()`, which opens `/dev/urandom` for every call on Linux (a third of
    /// the sandbox's time per push), nor `getrandom` per call (still a tenth): these IDs need to
    /// be unique, not secret. SplitMix64 is a bijection, so distinct counter values give
    /// distinct IDs; the seed is random per process.
    static func newID() -> String {
        let index = idCounter.add(2, ordering: .relaxed).oldValue
        // Constants, not variables, inside the closure: a captured `var` costs an exclusivity check
        // on every read.
        let high = (FaultDice.mix(idSeed &+ index) & ~0xF000) | 0x4000  // version 4
        let low = (FaultDice.mix(idSeed &+ index &+ 1) & ~(0xC000 << 48)) | (0x8000 << 48)  // variant 10
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let out = buffer.baseAddress!
            let dash = UInt8(ascii: "-")
            writeHex(high >> 32, digits: 8, to: out)
            out[8] = dash
            writeHex(high >> 16, digits: 4, to: out + 9)
            out[13] = dash
            writeHex(high, digits: 4, to: out + 14)
            out[18] = dash
            writeHex(low >> 48, digits: 4, to: out + 19)
            out[23] = dash
            writeHex(low, digits: 12, to: out + 24)
            return 36
        }
    }

    /// Writes the low `digits` hex digits of `value` (lower case) at `out`.
    @inline(__always)
    private static func writeHex(_ value: UInt64, digits: Int, to out: UnsafeMutablePointer<UInt8>) {
        var value = value
        var index = digits
        while index > 0 {
            index -= 1
            let digit = UInt8(truncatingIfNeeded: value) & 0xF
            out[index] = digit < 10 ? 0x30 &+ digit : 0x57 &+ digit
            value >>= 4
        }
    }

    private static let idCounter = Atomic<UInt64>(0)
    private static let idSeed: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

    /// The text of `value` after a case-insensitive `prefix`, without surrounding spaces; nil
    /// when `value` does not start with `prefix`.
    static func suffix(of value: String, afterCaseInsensitivePrefix prefix: String) -> Substring? {
        var rest = value.utf8[...]
        for expected in prefix.utf8 {
            guard let byte = rest.first, byte | 0x20 == expected | 0x20 else { return nil }
            rest = rest.dropFirst()
        }
        while rest.first == UInt8(ascii: " ") { rest = rest.dropFirst() }
        while rest.last == UInt8(ascii: " ") { rest = rest.dropLast() }
        return Substring(rest)
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        // 0-9, or a-f once 0x20 makes A-F lower-case (no other byte lands there).
        byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 6
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
    }
}
