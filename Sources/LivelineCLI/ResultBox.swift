/// Hands a value to the waiting thread (written once, read after the semaphore that says it was
/// written): how a command blocks on work of another thread or a task.
public final class ResultBox<T>: @unchecked Sendable {
    public var value: T?

    public init() {}
}
