/// What ``ContextRepository/recordedChange(key:now:note:in:)`` recorded: the context's new
/// revision and whose context it is (what the caller would otherwise read again).
public struct RecordedChange: Sendable, Hashable {
    public var rev: Int
    public var activityType: String
    /// The owner; nil for a `/v1` context.
    public var householdID: HouseholdID?
    /// Whether it wrote a sync row (or joined the due one): false when nobody may follow the
    /// context, or it is not active. Without one, no dispatcher needs waking for it.
    public var enqueuedSync: Bool

    public init(rev: Int, activityType: String, householdID: HouseholdID?, enqueuedSync: Bool = true) {
        self.rev = rev
        self.activityType = activityType
        self.householdID = householdID
        self.enqueuedSync = enqueuedSync
    }
}

/// A `/v1` context's state as given (`PUT /v1/contexts/{key}`), stored by the change that records
/// it, for a context of `activityType`: attributes (used by later starts; running activities keep theirs), content state and
/// relevance score (nil removes it), and the hints for the next push, each kept when nil and
/// pending until ``ContextRepository/clearHints(key:sentRev:sentAlert:in:)``.
public struct GivenState: Sendable, Hashable {
    public var activityType: String
    public var attributes: String
    public var contentState: String
    public var relevanceScore: Double?
    /// An alert (JSON) for the next push.
    public var alert: String?
    public var priority: Int?

    public init(
        activityType: String, attributes: String, contentState: String, relevanceScore: Double?, alert: String? = nil, priority: Int? = nil
    ) {
        self.activityType = activityType
        self.attributes = attributes
        self.contentState = contentState
        self.relevanceScore = relevanceScore
        self.alert = alert
        self.priority = priority
    }
}
