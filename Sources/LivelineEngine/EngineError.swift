/// A failure of the engine, with what went wrong for a person.
public struct EngineError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
