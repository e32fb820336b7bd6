import ActivityKit
import Foundation
import LivelineClient
import LivelineModel

// An app that links only the generic model and the SDK, with a contract of its own (the parcel of
// `examples/custom-backend`, the same file): this target depends on no built-in feature's model,
// so its build shows that an app needs none of their types (docs/architecture.md, "Models and
// the SDK").

@available(iOS 16.1, *)
extension ParcelActivityAttributes: ActivityAttributes {}

/// The parcel's route, declared once in the app's model as the built-in features declare theirs.
extension Routes {
    static let parcel = Route(.get, "/api/parcels/{code}")
}

/// The app's call of its own route, the way a feature's model adds its calls (`APICaller`).
extension APICaller {
    func parcel(_ code: String) async throws -> ContextSnapshotResponse {
        try await call(Routes.parcel, parameters: ["code": code])
    }
}

/// The parcel app's side of Liveline: its token, its card's truth, the contracts it knows.
@available(iOS 17.2, *)
@MainActor
final class ParcelsApp {
    let client: LivelineClient
    let tokens: LiveActivityTokenSync<ParcelActivityAttributes>
    /// The one contract this app knows.
    let registry = ContractRegistry([ParcelActivityAttributes.self])

    init(server: URL, userToken: String) {
        let client = LivelineClient(baseURL: server, bearerToken: userToken)
        self.client = client
        tokens = LiveActivityTokenSync(client: client, attributes: ParcelActivityAttributes.self) { "parcel:\($0.code)" }
    }

    /// At launch: the tokens, then the card's truth.
    func launched(code: String) async {
        tokens.start()
        let reconciler = client.reconciler(for: ParcelActivityAttributes.self, contextKey: "parcel:\(code)")
        _ = await reconciler.enteredForeground()
        _ = try? await client.parcel(code)
    }
}
