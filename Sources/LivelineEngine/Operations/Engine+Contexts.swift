import Foundation
import LivelineModel
import LivelineStore

/// What a context's timeline shows: its history, the newest revision a device was sent, and the
/// newest each device reported rendering.
public struct ContextTimeline: Sendable {
    public var entries: [TimelineEntry]
    public var sentRev: Int?
    public var acknowledged: [String: Int]
}

extension Engine {
    /// Stores a `/v1` context's whole state and pushes it (docs/architecture.md, "The path of a
    /// write"): the state must decode into the type's contract and the whole push, as the
    /// dispatcher will render it now, must pass the payload check; then, in one transaction, the
    /// context is created (revision 1) or updated (the revision goes up), and its sync row is
    /// enqueued (none while nobody may follow it; then no dispatcher is woken either). Refused
    /// with nothing changed: an unknown type or a push the phone would drop (`.payloadRefused`,
    /// naming the field), another activity type for an existing key (`.activityTypeChanged`), an
    /// ended context (`.contextEnded`), a context a feature owns (`.conflict`).
    @discardableResult
    public func putContext(key: String, _ put: PutContextRequest) throws -> ContextUpsertResult {
        let now = configuration.clock()
        let registry = renderer.registry
        guard let contract = registry.contract(named: put.type) else {
            let problem = registry.checkContentState(json: Data("{}".utf8), typeName: put.type, now: now).first
            throw EngineError(.payloadRefused, problem?.message ?? "'\(put.type)' is not a known contract type", field: "type")
        }
        // Left out, the attributes are `{}`: refused as a whole where the contract requires keys of them.
        let required = contract.schema.attributes.filter { !$0.isOptional }.map(\.key)
        if put.attributes == nil, !required.isEmpty {
            throw EngineError(
                .payloadRefused, "attributes is required: the static attributes of \(put.type), an object with \(required.joined(separator: ", "))",
                field: "attributes")
        }
        let attributes = put.attributes ?? .object([:])
        let attributesJSON = attributes.compactJSON
        let attributesText = String(decoding: attributesJSON, as: UTF8.self)
        try EngineError.refuse(
            registry.checkAttributes(json: attributesJSON, document: attributes, typeName: put.type, now: now), in: "attributes")
        // The engine sets the contract's `rev` itself when it renders; the caller need not send one.
        var state = put.contentState
        if contract.schema.contentState.contains(where: { $0.key == "rev" }), case .object(var fields) = state, fields["rev"] == nil {
            fields["rev"] = .int(0)
            state = .object(fields)
        }
        let alert = try put.alert.map { try JSONValue(json: try APICoding.makeEncoder().encode($0)) }
        // The whole push as the dispatcher will render it must pass (the contract, size, dates, alert).
        let report = checkUpdate(type: put.type, contentState: state, alert: alert, relevanceScore: put.relevanceScore)
        try EngineError.refuse(report.errors.map(EngineError.requestField), in: "")
        // An older version of the app's type on some of the context's phones must decode it too.
        try library.checkInstalled(contextKey: key, contract: contract, state: state, now: now)
        let contentStateText = put.contentState.compactText

        // The state as given goes with the change, in its statement.
        let given = GivenState(
            activityType: put.type, attributes: attributesText, contentState: contentStateText, relevanceScore: put.relevanceScore,
            alert: alert?.compactText, priority: put.priority)
        // A change nobody follows wrote no sync row: no dispatcher is woken for it.
        return try door.write(enqueued: \.1) { change in
            // Most puts change an active context of their type: one statement, which holds the
            // row (another instance's put of the same key waits).
            if let recorded = try change.recordGivenState(given, key: key, note: "updated") {
                return (ContextUpsertResult(rev: recorded.rev, created: false), recorded.enqueuedSync)
            }
            let created = try createOrRefuse(key: key, given: given, in: change)
            guard let recorded = try change.recordGivenState(given, key: key, note: created ? "created" : "updated") else {
                throw EngineError(.conflict, "the context \(key) changed while it was put; put it again")
            }
            return (ContextUpsertResult(rev: recorded.rev, created: created), recorded.enqueuedSync)
        }.0
    }

    /// Creates the `/v1` context `key` a put names (true), or finds one another instance created
    /// meanwhile (false, its row held: it is updated, not created twice); throws why an existing
    /// context cannot take the put: another type, ended, or a household's.
    private func createOrRefuse(key: String, given: GivenState, in change: EngineWrite) throws -> Bool {
        var existing = try change.lockedContext(key)
        if existing == nil {
            do {
                try change.createContext(
                    key: key, activityType: given.activityType, householdID: nil, attributes: given.attributes, contentState: given.contentState)
                return true
            } catch let error as StoreError where error.code == .alreadyExists {
                existing = try change.lockedContext(key)
            }
        }
        guard let existing else { return false }
        guard existing.activityType == given.activityType else {
            throw EngineError(
                .activityTypeChanged, "the context \(key) has the activity type \(existing.activityType); it cannot become \(given.activityType)")
        }
        guard existing.state == .active else {
            throw EngineError(.contextEnded, "the context \(key) has ended; its state no longer changes")
        }
        guard existing.householdID == nil else {
            throw EngineError(.conflict, "the context \(key) belongs to a household's feature, not to the generic API")
        }
        return false
    }

    /// Ends the context (`POST /v1/contexts/{key}/end`): its activities get the final state as the
    /// `end` event, starts not yet sent are cancelled, nothing is sent after. Ending an ended
    /// context changes nothing and says so. Throws `.notFound`.
    @discardableResult
    public func endContext(key: String, note: String? = "ended") throws -> ContextEndResult {
        try write { change in try change.end(key, note: note) }
    }

    /// The context's timeline, newest first; nil for an unknown key.
    public func timeline(key: String, limit: Int = 200) throws -> ContextTimeline? {
        guard try store.contexts.revision(key: key) != nil else { return nil }
        return ContextTimeline(
            entries: try store.contexts.timeline(key: key, limit: limit),
            sentRev: try store.deliveries.lastDeliveredRev(contextKey: key),
            acknowledged: Dictionary(try store.reports.receipts(contextKey: key).map { ($0.deviceID, $0.rev) }, uniquingKeysWith: max)
        )
    }

    /// The context's row; nil for an unknown key.
    public func context(key: String) throws -> ContextRecord? { try store.contexts.context(key: key) }

    /// The context's revision; nil for an unknown key.
    public func revision(key: String) throws -> Int? { try store.contexts.revision(key: key) }

    /// Whether a device of the household follows the `/v1` context `key` (a token registered for
    /// it, or a start sent to it): what lets the household's apps pull it.
    public func isFollowed(key: String, householdID: HouseholdID) throws -> Bool { try store.contexts.isFollowed(key: key, householdID: householdID) }
}
