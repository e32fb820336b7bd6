import ActivityKit
import DeliveryShared
import Foundation
import LivelineClient

/// The delivery app's side of Liveline: its own `ActivityAttributes` type (`DeliveryShared`, which
/// knows nothing of Liveline), its tokens registered with the fingerprint of that type as this
/// build has it, and the truth of a card pulled by its context key. Type-checked against the
/// ActivityKit stubs by `Tests/AppleGlue` (docs/sdk.md, "Using it from an app").
@available(iOS 17.2, *)
@MainActor
final class DeliveryApp {
    let client: LivelineClient
    let tokens: LiveActivityTokenSync<DeliveryActivityAttributes>

    init(server: URL, userToken: String) {
        let client = LivelineClient(baseURL: server, bearerToken: userToken)
        self.client = client
        tokens = LiveActivityTokenSync(client: client, attributes: DeliveryActivityAttributes.self) { "delivery:\($0.orderId)" }
    }

    /// At launch: hand ActivityKit's tokens to the server.
    func launched() { tokens.start() }

    /// The card's truth, decoded into the app's own state type.
    func truth(orderID: String, sinceRev: Int?) async throws -> DeliveryActivityAttributes.ContentState? {
        guard case .snapshot(let snapshot) = try await client.pull(contextKey: "delivery:\(orderID)", sinceRev: sinceRev) else { return nil }
        return try JSONDecoder().decode(DeliveryActivityAttributes.ContentState.self, from: snapshot.state.compactJSON)
    }
}
