/// How many attempts ended with one HTTP status and reason, for `/metrics` ("pushes by status and
/// reason", `docs/engine.md`, "Configuration and operation").
public struct DeliveryCount: Sendable, Hashable {
    /// The HTTP status; 0 for no answer.
    public var status: Int
    public var reason: String?
    public var count: Int

    public init(status: Int, reason: String?, count: Int) {
        self.status = status
        self.reason = reason
        self.count = count
    }
}
