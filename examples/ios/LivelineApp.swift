import ActivityKit
import Foundation
import LivelineClient
import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTransitModel

/// The app's side of Liveline for the three contracts (`docs/sdk.md`, "The app and its
/// widget"): tokens, the user's opt-in, reconciling with receipts, and the cards the
/// app starts and ends itself. CI type-checks this file against stubs of ActivityKit
/// (`Tests/AppleGlue`); Xcode alone checks it against the real SDK.
@available(iOS 17.2, *)
@MainActor
final class LivelineApp {
    let client: LivelineClient
    /// Where the widget extension reads the cards' snapshots (nil: the App Group is not in the
    /// app's entitlements).
    let store: SharedSnapshotStore?
    private let shoppingTokens: LiveActivityTokenSync<ShoppingActivityAttributes>
    private let mealTokens: LiveActivityTokenSync<CookSuggestActivityAttributes>
    private let tripTokens: LiveActivityTokenSync<TripLiveActivityAttributes>
    private var trips: [String: Reconciler<TripLiveActivityAttributes.ContentState>] = [:]

    /// - Parameters: `userID` and `householdID` are the signed-in user's (they are part of the
    ///   context keys of the shopping and meal-planning cards).
    init(server: URL, userToken: String, deviceID: String, userID: Int, householdID: Int, appGroup: String) {
        let client = LivelineClient(baseURL: server, bearerToken: userToken, deviceID: deviceID)
        self.client = client
        store = SharedSnapshotStore(appGroup: appGroup, onWrite: SharedSnapshotStore.reloadWidgets)
        // The server's context key of each contract's activity, from its attributes.
        shoppingTokens = LiveActivityTokenSync(client: client, attributes: ShoppingActivityAttributes.self) {
            "shopping:\(householdID):\($0.week)"
        }
        mealTokens = LiveActivityTokenSync(client: client, attributes: CookSuggestActivityAttributes.self) {
            "cooksuggest:\($0.sessionId):\(userID)"
        }
        tripTokens = LiveActivityTokenSync(client: client, attributes: TripLiveActivityAttributes.self) { "trip:\($0.tripId)" }
    }

    /// At every launch: the alert token, every Live Activity token, and the user's setting.
    func launched(deviceToken: Data) async {
        _ = try? await client.register(.alert, token: deviceToken.map { String(format: "%02x", $0) }.joined())
        shoppingTokens.start()
        mealTokens.start()
        tripTokens.start()
        Task { await followOptIn() }
    }

    /// Sends the "Live Activities" switch of Settings for every contract, now and whenever it
    /// changes: the server never push-starts a card the user turned off.
    func followOptIn() async {
        let authorization = ActivityAuthorizationInfo()
        await setLiveActivities(enabled: authorization.areActivitiesEnabled)
        for await enabled in authorization.activityEnablementUpdates {
            await setLiveActivities(enabled: enabled)
        }
    }

    private func setLiveActivities(enabled: Bool) async {
        for type in [ShoppingActivityAttributes.typeName, CookSuggestActivityAttributes.typeName, TripLiveActivityAttributes.typeName] {
            _ = try? await client.setLiveActivities(enabled: enabled, for: type)
        }
    }

    /// A push woke the app (or it came to the front): pull the truth of the trip's card, which
    /// reports the applied revision as a receipt, and end the card if the ride ended.
    func tripPushArrived(tripID: String) async {
        let contextKey = "trip:\(tripID)"
        let reconciler = trips[contextKey] ?? client.reconciler(for: TripLiveActivityAttributes.self, contextKey: contextKey, store: store)
        trips[contextKey] = reconciler
        _ = await reconciler.pushArrived()
        guard let snapshot = await reconciler.snapshot, snapshot.ended else { return }
        for activity in Activity<TripLiveActivityAttributes>.activities where activity.attributes.tripId == tripID {
            // A push after the end is ignored: without the server's dismissal date the ended card
            // would stay up to four hours.
            await activity.end(
                ActivityContent(state: snapshot.state, staleDate: nil), dismissalPolicy: snapshot.dismissalDate.map { .after($0) } ?? .default)
        }
        trips[contextKey] = nil
    }

    /// Starts the week's shopping card on this phone: it follows the household's broadcast
    /// channel on iOS 18 (one push reaches every shopper), its own token before.
    func startShopping(week: String) async throws {
        let session = try await client.startShopping(week: week)
        guard case .snapshot(let snapshot) = try await client.pull(ShoppingActivityAttributes.self, contextKey: session.contextKey, sinceRev: nil)
        else { return }
        let content = ActivityContent(state: snapshot.state, staleDate: nil)
        var pushType = PushType.token
        if #available(iOS 18.0, *), let channel = session.channelId { pushType = .channel(channel) }
        _ = try Activity.request(attributes: ShoppingActivityAttributes(week: week), content: content, pushType: pushType)
    }

    /// Opens a meal-planning session for two and starts the initiator's card with the server's
    /// first card state; the partner's phone gets theirs by push-to-start.
    func planDinner(date: String, partner: Int) async throws {
        let session = try await client.createCookSuggestSession(date: date, partner: partner)
        guard let card = session.card else { return }
        let attributes = CookSuggestActivityAttributes(sessionId: session.id, date: session.date ?? date)
        _ = try Activity.request(attributes: attributes, content: ActivityContent(state: card, staleDate: nil), pushType: .token)
    }
}
