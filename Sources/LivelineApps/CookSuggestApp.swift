import Foundation
import LivelineClient
import LivelineCookSuggestModel
import LivelineDevices
import LivelineModel

/// The meal-planning screens of the app on a simulated device (`docs/features/cook-suggest.md`):
/// what its user taps, carried out through the SDK (``LivelineClient``) as the real app does. The
/// card itself is the device's: started by the server's push-to-start (the partner) or by the app
/// (the initiator, ``start(date:partner:)``), updated by pushes and pulls. A built-in app, so it
/// lives with the demo's dinner story, not with the simulated iPhones; the end-to-end tests use it
/// too.
public struct CookSuggestApp: Sendable {
    public let device: SimulatedDevice
    public let client: LivelineClient
    let fleet: DeviceFleet

    public init(device: SimulatedDevice, client: LivelineClient, fleet: DeviceFleet) {
        self.device = device
        self.client = client
        self.fleet = fleet
    }

    /// Starts planning `date` with `partner` (solo when nil). The initiator is in the app: it
    /// starts its own card from the answer (the partner from its point of view, the card as the
    /// server renders it), whose update token the app registers under the answer's `contextKey`.
    @discardableResult
    public func start(date: String? = nil, partner: Int? = nil) async throws -> CookSuggestSessionResponse {
        let session = try await client.createCookSuggestSession(date: date, partner: partner)
        if session.created == true, let card = session.card {
            let other = session.participants?.first { $0.userId != device.configuration.userID }
            let attributes = CookSuggestActivityAttributes(
                sessionId: session.id, date: session.date ?? "", partnerName: other?.name, partnerTint: other?.avatarTint,
                partnerEmoji: other?.emoji)
            fleet.startLocally(
                device: device.id, attributesType: CookSuggestActivityAttributes.typeName,
                attributes: try JSONValue(json: JSONEncoder().encode(attributes)), contentState: try JSONValue(json: JSONEncoder().encode(card)),
                channelID: nil)
        }
        return session
    }

    /// The user taps the newest notification that links to a session (the invitation): the app
    /// opens it. A session that is over is shown as it is; an open one is joined.
    public func openInvitation() async throws -> CookSuggestSessionResponse? {
        guard let id = device.notifications.reversed().lazy.compactMap({ $0.link.flatMap(LivelineClient.cookSuggestSessionID(fromLink:)) }).first
        else { return nil }
        let session = try await client.cookSuggestSession(id)
        guard let state = session.state, !["decided", "cancelled"].contains(state) else { return session }
        return try await client.joinCookSuggest(id)
    }

    @discardableResult
    public func answer(_ id: String, _ answers: CookSuggestAnswers) async throws -> CookSuggestSessionResponse {
        try await client.answerCookSuggest(id, answers)
    }

    @discardableResult
    public func ready(_ id: String) async throws -> CookSuggestSessionResponse { try await client.readyCookSuggest(id) }

    @discardableResult
    public func pick(_ id: String, _ proposal: String) async throws -> CookSuggestSessionResponse {
        try await client.pickCookSuggest(id, proposal: proposal)
    }

    @discardableResult
    public func confirm(_ id: String, _ proposal: String) async throws -> CookSuggestSessionResponse {
        try await client.confirmCookSuggest(id, proposal: proposal)
    }

    @discardableResult
    public func leave(_ id: String) async throws -> CookSuggestSessionResponse { try await client.leaveCookSuggest(id) }

    @discardableResult
    public func cancel(_ id: String) async throws -> CookSuggestSessionResponse { try await client.cancelCookSuggest(id) }

    /// What the device's card of session `id` shows now, decoded as the widget decodes it.
    public func card(_ id: String) -> CookSuggestActivityAttributes.ContentState? {
        device.activity(contextKey: "cooksuggest:\(id):\(device.configuration.userID)").flatMap {
            try? JSONDecoder().decode(CookSuggestActivityAttributes.ContentState.self, from: $0.contentState.compactJSON)
        }
    }
}
