import Foundation
import LivelineClient
import LivelineModel

/// What the simulated app does after a device decision, through the real API (`LivelineClient`).
public enum AppAction: Sendable {
    /// Register a token (a push-to-start token, a new update token, a rotated one); an update
    /// token with its activity's id.
    case register(kind: PushTokenKind, token: String, contextKey: String?, attributesType: String?, activityID: String? = nil)
    /// Hand the widget extension's push token and the kinds of its widgets to the server (what
    /// its `WidgetPushHandler` does on the first token and every new one).
    case registerWidgets(WidgetPushRegistration)
    /// A push reloaded the timeline of the widget of `kind`: its timeline provider reads the
    /// contexts the widget shows.
    case reloadWidget(kind: String)
    /// A push woke the app: pull the context's truth `?since_rev=`.
    case pull(contextKey: String, sinceRev: Int?)
    /// Report the revision the card shows.
    case receipt(contextKey: String, rev: Int)
    /// Report how the app's own activity stands (`POST /api/la/activity`): pending until
    /// `startsAt`, active, ended; transient or not.
    case activity(contextKey: String, state: ReportedActivityState, startsAt: Date?, style: ReportedActivityStyle, activityID: String)
    /// The user swiped the card away.
    case dismissed(contextKey: String)
    /// The user pressed a button on the card (``CardButton``): the app runs its intent through
    /// the API, then pulls the card.
    case intent(contextKey: String, AppIntent, sinceRev: Int?)
}
