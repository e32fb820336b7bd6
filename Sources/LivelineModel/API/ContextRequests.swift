/// Body of `PUT /v1/contexts/{key}` (`docs/engine.md`, "Generic API"): the whole truth of a context
/// kept by another backend. The content state must decode into the contract named `type`.
public struct PutContextRequest: Codable, Sendable, Hashable {
    /// The contract (`ActivityAttributes` type) name, e.g. `ParcelActivityAttributes` (examples/custom-backend).
    public var type: String
    /// The static attributes (used by later starts); `{}` when left out.
    public var attributes: JSONValue?
    /// The full content state, as the widget decodes it.
    public var contentState: JSONValue
    /// An alert for the next push (lights the phone up); cleared once a push carried it.
    public var alert: LiveActivityAlert?
    /// `apns-priority` for the next push: 10 (at once) or 5 (when the phone sees fit).
    public var priority: Int?
    /// `relevance-score` sent with every push while set.
    public var relevanceScore: Double?

    public init(
        type: String, attributes: JSONValue? = nil, contentState: JSONValue, alert: LiveActivityAlert? = nil, priority: Int? = nil,
        relevanceScore: Double? = nil
    ) {
        self.type = type
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
        self.priority = priority
        self.relevanceScore = relevanceScore
    }
}

/// Answer of `PUT /v1/contexts/{key}` (201 when it created the context, else 200).
public struct PutContextResponse: Codable, Sendable, Hashable {
    public var key: String
    /// The revision this change got.
    public var rev: Int
    public var created: Bool

    public init(key: String, rev: Int, created: Bool) {
        self.key = key
        self.rev = rev
        self.created = created
    }
}

/// Answer of `POST /v1/contexts/{key}/end`.
public struct EndContextResponse: Codable, Sendable, Hashable {
    public var key: String
    /// The revision of the end (the current one when it had ended already).
    public var rev: Int
    /// True when the context had ended before this call (nothing changed).
    public var alreadyEnded: Bool

    public init(key: String, rev: Int, alreadyEnded: Bool) {
        self.key = key
        self.rev = rev
        self.alreadyEnded = alreadyEnded
    }
}
