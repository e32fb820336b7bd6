import Foundation
import LivelineClient
import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTransitModel

/// The widget extension's side: it reads the snapshot the app wrote last into the App Group and
/// shows it; it never computes (`docs/sdk.md`, "Shared snapshot store"). The lines are what each
/// card's view draws (the SwiftUI layout is described in docs/sdk.md, "The app and
/// its widget"). CI type-checks this file (`Tests/AppleGlue`).
struct WidgetSnapshots {
    let store: SharedSnapshotStore

    /// The shopping card: "3 of 12 left · about 18.40 €", then the last change.
    func shopping(contextKey: String) -> [String] {
        guard let snapshot = try? store.read(ShoppingActivityAttributes.ContentState.self, contextKey: contextKey) else { return [] }
        let state = snapshot.state
        let estimate = state.estPriced > 0 ? String(format: " · about %.2f €", state.estEur) : ""
        return ["\(state.open) of \(state.total) left\(estimate)", state.lastEventText ?? ""]
    }

    /// The meal-planning card: its status, then the dish once decided (else the partner's pick).
    func mealPlan(contextKey: String) -> [String] {
        guard let snapshot = try? store.read(CookSuggestActivityAttributes.ContentState.self, contextKey: contextKey) else { return [] }
        let state = snapshot.state
        return [state.statusLabel, state.decidedTitle ?? state.partnerPickTitle ?? "\(state.proposalCount) ideas"]
    }

    /// The trip card: the next stop and the minutes left, with the delay when there is one.
    func trip(contextKey: String) -> [String] {
        guard let snapshot = try? store.read(TripLiveActivityAttributes.ContentState.self, contextKey: contextKey) else { return [] }
        let state = snapshot.state
        let delay = state.delay > 60 ? " (+\(state.delay / 60) min)" : ""
        return ["Next: \(state.nextStop)", "\(Int(state.remainingTime / 60)) min\(delay)"]
    }
}
