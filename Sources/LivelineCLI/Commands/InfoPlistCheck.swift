import Foundation
import LivelineModel
import LivelinePush
import LivelinePushWire

/// `liveline doctor --info-plist FILE [--entitlements FILE]`: what the app's Info.plist and
/// entitlements must say for the Live Activities this server pushes (Apple's "Displaying live data
/// with Live Activities": `NSSupportsLiveActivities`, `NSSupportsLiveActivitiesFrequentUpdates`;
/// the `aps-environment` entitlement). XML and binary property lists. One line per check, ✔ or ✘
/// with what to do.
enum InfoPlistCheck {
    /// The priority-10 pushes an hour an app gets without frequent updates (the server's default
    /// budget, `LIVELINE_PRIORITY_BUDGET`): a configured budget above it needs them.
    static let plainBudget = 12

    struct Outcome {
        var lines: [String] = []
        var failures = 0
        mutating func pass(_ text: String) { lines.append("✔ \(text)") }
        mutating func fail(_ text: String) {
            failures += 1
            lines.append("✘ \(text)")
        }
    }

    static func run(
        infoPlist: URL, entitlements: URL?, bundleID: String, environment: PushEnvironment, budgets: [String: Int]
    ) -> Outcome {
        var outcome = Outcome()
        let info: [String: Any]
        do {
            info = try dictionary(infoPlist)
            outcome.pass("\(infoPlist.lastPathComponent) is a property list")
        } catch {
            outcome.fail("\(infoPlist.path): \(error)")
            return outcome
        }
        let extensionPoint = (info["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String
        let isWidget = extensionPoint == "com.apple.widgetkit-extension"
        let supports = info["NSSupportsLiveActivities"]
        if isWidget {
            if supports != nil {
                outcome.fail(
                    "NSSupportsLiveActivities is in a widget extension's Info.plist (\(extensionPoint ?? "")); it belongs in the app's Info.plist")
            } else {
                outcome.fail("this is a widget extension's Info.plist: check the app's, where NSSupportsLiveActivities must be YES")
            }
        } else if let value = supports as? Bool {
            if value {
                outcome.pass("NSSupportsLiveActivities is YES")
            } else {
                outcome.fail("NSSupportsLiveActivities is NO: set it to YES, or the app cannot show Live Activities")
            }
        } else if supports != nil {
            outcome.fail("NSSupportsLiveActivities is not a Boolean: set it to YES (<true/>)")
        } else {
            outcome.fail("NSSupportsLiveActivities is missing: add it to the app's Info.plist with the value YES")
        }
        let frequent = info["NSSupportsLiveActivitiesFrequentUpdates"] as? Bool ?? false
        let needed = budgets.max { $0.value < $1.value }
        if let needed, needed.value > plainBudget, !frequent {
            outcome.fail(
                "NSSupportsLiveActivitiesFrequentUpdates is not YES, but the server sends up to \(needed.value) priority-10 pushes an hour (\(needed.key)); set it to YES or lower the budget to \(plainBudget)"
            )
        } else {
            outcome.pass(
                frequent
                    ? "NSSupportsLiveActivitiesFrequentUpdates is YES"
                    : "NSSupportsLiveActivitiesFrequentUpdates not set; the budgets (≤ \(plainBudget) an hour) do not need it")
        }
        if let identifier = info["CFBundleIdentifier"] as? String {
            if identifier.contains("$(") {
                outcome.fail("CFBundleIdentifier is the build setting \(identifier): check the built app's Info.plist (it must be \(bundleID))")
            } else if identifier == bundleID {
                outcome.pass("CFBundleIdentifier is \(bundleID), the bundle id the server pushes to")
            } else {
                outcome.fail(
                    "CFBundleIdentifier is \(identifier), but the server pushes to \(bundleID): set LIVELINE_APNS_BUNDLE_ID=\(identifier) or fix the app's"
                )
            }
        } else {
            outcome.fail("CFBundleIdentifier is missing")
        }
        if let entitlements {
            let wanted = environment == .production ? "production" : "development"
            do {
                let values = try dictionary(entitlements)
                switch values["aps-environment"] as? String {
                case wanted?: outcome.pass("aps-environment is \(wanted), as LIVELINE_APNS_ENVIRONMENT=\(environment.rawValue)")
                case let other?:
                    outcome.fail(
                        "aps-environment is \(other), but LIVELINE_APNS_ENVIRONMENT=\(environment.rawValue) expects \(wanted): the app's tokens would be refused (BadDeviceToken)"
                    )
                case nil: outcome.fail("aps-environment is missing from \(entitlements.lastPathComponent): add the Push Notifications capability")
                }
            } catch {
                outcome.fail("\(entitlements.path): \(error)")
            }
        }
        return outcome
    }

    /// The top-level dictionary of the property list at `url` (XML or binary).
    static func dictionary(_ url: URL) throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw CLIError("cannot be read") }
        let value: Any
        do {
            value = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw CLIError("is no property list (XML or binary): \(error.localizedDescription)")
        }
        guard let dictionary = value as? [String: Any] else { throw CLIError("is a property list, but not a dictionary") }
        return dictionary
    }
}
