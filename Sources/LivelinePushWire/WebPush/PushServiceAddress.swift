/// Which addresses a web push may connect to: push services are on the internet, so an address
/// of this machine, a private network or link-local use is refused when libcurl is about to
/// connect — whatever name the endpoint gave (a public-looking host name may resolve to one).
/// Loopback only with `LIVELINE_WEBPUSH_ALLOW_INSECURE` (local push services, tests).
///
/// Ranges: RFC 1122 (0/8, 127/8), RFC 1918 (10/8, 172.16/12, 192.168/16), RFC 6598 (100.64/10),
/// RFC 3927 (169.254/16), multicast and broadcast (224/4, 240/4); IPv6 RFC 4291 (::, ::1,
/// fe80::/10, ff00::/8, ::ffff:0:0/96 by its IPv4 address), RFC 4193 (fc00::/7).
public enum PushServiceAddress {
    /// Why `bytes` (4 or 16, network order) may not be connected to, or nil when it may.
    public static func refusal(_ bytes: [UInt8], allowLoopback: Bool) -> String? {
        switch bytes.count {
        case 4: return refusal(ipv4: bytes, allowLoopback: allowLoopback)
        case 16:
            if isIPv4Mapped(bytes) { return refusal(ipv4: Array(bytes[12...]), allowLoopback: allowLoopback) }
            if bytes[..<15].allSatisfy({ $0 == 0 }) {
                if bytes[15] == 1 { return allowLoopback ? nil : "a loopback address (this machine)" }
                if bytes[15] == 0 { return "the unspecified address" }
            }
            if bytes[0] & 0xfe == 0xfc { return "a private (unique local) address" }
            if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 { return "a link-local address" }
            if bytes[0] == 0xff { return "a multicast address" }
            return nil
        default: return "not an IPv4 or IPv6 address"
        }
    }

    /// ::ffff:0:0/96, an IPv4 address in IPv6 form.
    private static func isIPv4Mapped(_ bytes: [UInt8]) -> Bool {
        bytes[..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
    }

    private static func refusal(ipv4 bytes: [UInt8], allowLoopback: Bool) -> String? {
        let (a, b) = (bytes[0], bytes[1])
        if a == 127 { return allowLoopback ? nil : "a loopback address (this machine)" }
        if a == 0 { return "an address of this network (0/8)" }
        if a == 10 || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168) { return "a private address" }
        if a == 100 && (64...127).contains(b) { return "a shared (carrier-grade NAT) address" }
        if a == 169 && b == 254 { return "a link-local address" }
        if a >= 224 { return "a multicast or reserved address" }
        return nil
    }

    /// `bytes` as text: dotted IPv4, or IPv6 in eight groups of hex (`::ffff:` and the dotted
    /// IPv4 address for a mapped one).
    public static func text(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        if bytes.count == 16, isIPv4Mapped(bytes) { return "::ffff:" + text(Array(bytes[12...])) }
        return stride(from: 0, to: bytes.count, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}
