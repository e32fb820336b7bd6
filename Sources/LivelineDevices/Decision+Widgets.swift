import Foundation
import LivelineModel
import LivelineSandbox

extension Decision {
    /// WidgetKit's rules for a `widgets` push (`docs/devices.md`, "Widgets"), in order:
    /// - it came to a device token, not a channel ("You can't update widgets with broadcast push
    ///   notifications you send on a channel");
    /// - the device has a widget push token — iOS 26 or later and a widget placed — and the push
    ///   came to it;
    /// - `aps.content-changed` is `true`;
    /// - then every widget's timeline reloads ("it reloads your timelines, similar to when you call
    ///   `reloadAllTimelines()`"), each within its own budget: over ``DeviceRules/widgetReloadBudget``
    ///   reloads in ``DeviceRules/widgetReloadWindow`` the push is dropped for that widget
    ///   ("throttled"), whatever its priority — Apple budgets WidgetKit pushes and names no
    ///   priority that escapes it.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications)
    /// and "Keeping a widget up to date"
    /// (https://developer.apple.com/documentation/widgetkit/keeping-a-widget-up-to-date).
    mutating func widgets(_ push: AcceptedPush, aps: [String: JSONValue]) -> [AppAction] {
        guard push.channelID == nil else { return drop(nil, "widgets cannot be updated by a broadcast push") }
        guard let token = state.widgetToken else {
            return drop(
                nil,
                configuration.os < .widgetPushes
                    ? "WidgetKit pushes need iOS 26; this device runs \(configuration.os)" : "the app has no widget that takes pushes")
        }
        guard push.token == token else { return drop(nil, "the token is not the widget extension's push token") }
        guard aps["content-changed"] == .bool(true) else { return drop(nil, "no aps.content-changed: true: WidgetKit reloads nothing") }
        var actions: [AppAction] = []
        for index in state.widgets.indices {
            var widget = state.widgets[index]
            widget.reloads = widget.reloads.filter { now.timeIntervalSince($0) < rules.widgetReloadWindow }
            defer { state.widgets[index] = widget }
            guard widget.reloads.count < rules.widgetReloadBudget else {
                note(
                    .dropped, nil,
                    "widget \(widget.kind) throttled: \(widget.reloads.count) reloads in the last \(Int(rules.widgetReloadWindow / 3600)) hours (budget \(rules.widgetReloadBudget))"
                )
                continue
            }
            widget.reloads.append(now)
            note(.event, nil, "widget \(widget.kind): a push reloads its timeline (priority \(push.priority))")
            actions.append(.reloadWidget(kind: widget.kind))
        }
        return actions
    }
}
