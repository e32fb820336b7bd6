/// The sandbox could not start: a port, the certificate or the key.
public struct SandboxError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
