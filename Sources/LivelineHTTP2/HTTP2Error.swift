import Foundation

/// A failure of the HTTP/2 layer: a system call, TLS, or nghttp2; the message says which.
public struct HTTP2Error: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static func system(_ call: String) -> HTTP2Error {
        HTTP2Error("\(call) failed: \(String(cString: strerror(errno)))")
    }
}
