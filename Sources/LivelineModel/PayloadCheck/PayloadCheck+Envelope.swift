import Foundation

extension PayloadCheck {
    /// The keys of a Live Activity `aps` dictionary (`docs/apns.md` §1.5).
    static let apsKeys: [String] = [
        "timestamp", "event", "content-state", "attributes-type", "attributes", "stale-date", "dismissal-date",
        "relevance-score", "alert", "input-push-token", "input-push-channel",
    ]

    /// Keys of ordinary alert pushes that Live Activity pushes do not use (`docs/apns.md` §1.5).
    static let alertPushKeys: Set<String> = [
        "interruption-level", "thread-id", "category", "mutable-content", "badge", "sound", "content-available",
        "target-content-id", "filter-criteria",
    ]

    func checkLiveActivity(
        _ json: Data, document parsed: JSONValue? = nil, contract explicit: (any LiveActivityContract.Type)?, into report: inout PayloadCheckReport
    ) {
        let document: JSONValue
        do {
            document = try parsed ?? JSONValue(json: json)
        } catch let error as DecodingError {
            report.problems.append(PayloadProblem(.invalidJSON, at: "", "is not valid JSON\(Self.syntaxDetail(error))"))
            return
        } catch {
            report.problems.append(PayloadProblem(.invalidJSON, at: "", "is not valid JSON"))
            return
        }
        guard case .object(let root) = document else {
            report.problems.append(PayloadProblem(.typeMismatch, at: "", "must be a JSON object {\"aps\": {…}}, found \(document.kindDescription)"))
            return
        }
        guard let apsValue = root["aps"] else {
            var message = "is missing: a Live Activity push is {\"aps\": {\"event\", \"timestamp\", \"content-state\", …}}"
            if let other = NameSuggestion.closest(to: "aps", among: Array(root.keys)).first { message += "; found '\(other)'" }
            report.problems.append(PayloadProblem(.missingKey, at: "aps", message))
            return
        }
        guard case .object(let aps) = apsValue else {
            report.problems.append(PayloadProblem(.typeMismatch, at: "aps", "must be an object, found \(apsValue.kindDescription)"))
            return
        }
        var problems: [PayloadProblem] = []

        // event
        var event: LiveActivityEvent?
        switch aps["event"] {
        case nil:
            problems.append(PayloadProblem(.missingKey, at: "aps.event", "is missing: one of start, update, end"))
        case .string(let text)?:
            if LiveActivityEvent.known.contains(LiveActivityEvent(rawValue: text)) {
                event = LiveActivityEvent(rawValue: text)
            } else {
                problems.append(PayloadProblem(.unknownEvent, at: "aps.event", "\"\(text)\" is not an event; expected start, update or end"))
            }
        case let other?:
            problems.append(PayloadProblem(.typeMismatch, at: "aps.event", "expected a string (start, update, end), found \(other.kindDescription)"))
        }
        report.event = event?.rawValue
        let isStart = event == .start
        let eventName = event?.rawValue ?? "this event"
        if isStart, destination == .broadcast {
            problems.append(
                PayloadProblem(
                    .startOnBroadcast, at: "aps.event",
                    "a broadcast push cannot start an activity; start it with a device push-to-start token (it may subscribe with input-push-channel)"
                ))
        }

        // timestamp
        if let value = aps["timestamp"] {
            let (date, problem) = DateRules.headerDate(value, at: "aps.timestamp")
            if let problem { problems.append(problem) }
            if let date, date.timeIntervalSince(now) > DateRules.futureTimestampLimit {
                // docs/devices.md: a start or update stamped more than 8 h ahead is dropped; an end is always taken.
                problems.append(
                    PayloadProblem(
                        .timestampInFuture, at: "aps.timestamp",
                        "is \(DateRules.iso(date)), more than 8 hours ahead of now (\(DateRules.iso(now))); a phone drops a start or update that far in the future",
                        severity: event == .end ? .warning : .error))
            }
        } else {
            problems.append(
                PayloadProblem(
                    .missingKey, at: "aps.timestamp",
                    "is missing: set it to the current time in UNIX seconds; the phone keeps only the push with the newest timestamp"))
        }

        // attributes-type, and which contract applies
        var contract = explicit
        switch aps["attributes-type"] {
        case nil:
            if isStart {
                problems.append(
                    PayloadProblem(
                        .missingKey, at: "aps.attributes-type",
                        "is missing: a start names the ActivityAttributes type, one of \(registry.names.joined(separator: ", "))"))
            }
        case .string(let name)?:
            if event != nil, !isStart {
                problems.append(
                    PayloadProblem(
                        .ignoredKey, at: "aps.attributes-type", "is only read on start; the phone ignores it on \(eventName)", severity: .warning))
            }
            if let known = registry.contract(named: name) {
                if let explicit, explicit.typeName != name {
                    problems.append(
                        PayloadProblem(
                            .attributesTypeMismatch, at: "aps.attributes-type",
                            "is '\(name)', but the payload is checked as '\(explicit.typeName)'"))
                } else {
                    contract = known
                }
            } else {
                var problem = registry.unknownTypeProblem(name, keyPath: "aps.attributes-type")
                if isStart { problem.message += "; the phone starts nothing for a type the app does not declare" }
                problems.append(problem)
            }
        case let other?:
            problems.append(
                PayloadProblem(.typeMismatch, at: "aps.attributes-type", "expected the type name as a string, found \(other.kindDescription)"))
        }
        report.contractName = contract?.typeName
        if contract == nil, aps["attributes-type"] == nil {
            problems.append(
                PayloadProblem(
                    .unknownContract, at: "",
                    "cannot tell which contract this payload is for: give the type name (liveline contracts check FILE --type TYPE) or add aps.attributes-type; known: \(registry.names.joined(separator: ", "))"
                ))
        }

        // content-state
        if let state = aps["content-state"] {
            if let contract {
                problems += contract.contentStateProblems(state, document: json, path: ["aps", "content-state"], now: now)
            } else if state.objectValue == nil {
                problems.append(PayloadProblem(.typeMismatch, at: "aps.content-state", "must be an object, found \(state.kindDescription)"))
            }
        } else {
            var message = "is missing: every event carries the whole content state (on end, the final one)"
            if let other = NameSuggestion.closest(to: "content-state", among: Array(aps.keys)).first {
                message += "; the payload has '\(other)': the key is spelt content-state"
            }
            problems.append(PayloadProblem(.missingKey, at: "aps.content-state", message))
        }

        // attributes
        if let attributes = aps["attributes"] {
            if event != nil, !isStart {
                problems.append(
                    PayloadProblem(
                        .ignoredKey, at: "aps.attributes", "is only read on start; the phone ignores it on \(eventName)", severity: .warning))
            }
            if let contract {
                problems += contract.attributesProblems(attributes, document: json, path: ["aps", "attributes"], now: now)
            }
        } else if isStart {
            problems.append(
                PayloadProblem(
                    .missingKey, at: "aps.attributes",
                    "is missing: a start carries the static attributes\(contract.map { " of \($0.typeName)" } ?? "")"))
        }

        // alert
        if let alert = aps["alert"] {
            checkAlert(alert, isStart: isStart, into: &problems)
        } else if isStart {
            problems.append(
                PayloadProblem(.missingKey, at: "aps.alert", "is missing: a start needs an alert with a title ({\"title\": …, \"body\": …})"))
        }

        // stale-date
        if let value = aps["stale-date"] {
            let (date, problem) = DateRules.headerDate(value, at: "aps.stale-date")
            if let problem { problems.append(problem) }
            if event == .end {
                problems.append(PayloadProblem(.ignoredKey, at: "aps.stale-date", "has no effect on end (use dismissal-date)", severity: .warning))
            } else if let date, date < now {
                if isStart {
                    problems.append(
                        PayloadProblem(
                            .staleDateInPast, at: "aps.stale-date",
                            "is \(DateRules.iso(date)), already past (now \(DateRules.iso(now))); a start with a past stale date is created stale and never presented"
                        ))
                } else {
                    problems.append(
                        PayloadProblem(
                            .staleDateInPast, at: "aps.stale-date",
                            "is \(DateRules.iso(date)), already past; the card shows as out of date at once", severity: .warning))
                }
            }
        }

        // dismissal-date
        if let value = aps["dismissal-date"] {
            let (_, problem) = DateRules.headerDate(value, at: "aps.dismissal-date")
            if let problem { problems.append(problem) }
            if event != nil, event != .end {
                problems.append(
                    PayloadProblem(
                        .dismissalDateNotOnEnd, at: "aps.dismissal-date",
                        "only end takes a dismissal-date, not \(eventName); send it with the end push"))
            }
        }

        // relevance-score
        if let score = aps["relevance-score"], score.numberValue == nil {
            problems.append(PayloadProblem(.typeMismatch, at: "aps.relevance-score", "expected a number, found \(score.kindDescription)"))
        }

        // input-push-token / input-push-channel
        let token = aps["input-push-token"]
        let channel = aps["input-push-channel"]
        if token != nil, channel != nil {
            problems.append(
                PayloadProblem(
                    .pushTokenAndChannel, at: "aps",
                    "has both input-push-token and input-push-channel; they never go together: ask for an update token or subscribe to a channel"))
        }
        if let token {
            if token != .int(1) {
                problems.append(PayloadProblem(.invalidValue, at: "aps.input-push-token", "must be 1, found \(token)"))
            }
            if event != nil, !isStart {
                problems.append(PayloadProblem(.ignoredKey, at: "aps.input-push-token", "is only read on start", severity: .warning))
            }
        }
        if let channel {
            if let text = channel.stringValue, !text.isEmpty, Data(base64Encoded: text) != nil {
                // A channel id as APNs returns it.
            } else {
                problems.append(
                    PayloadProblem(.invalidValue, at: "aps.input-push-channel", "must be the base64 channel id that APNs returned, found \(channel)"))
            }
            if event != nil, !isStart {
                problems.append(PayloadProblem(.ignoredKey, at: "aps.input-push-channel", "is only read on start", severity: .warning))
            }
        }

        // keys nobody reads
        for key in aps.keys.sorted() where !Self.apsKeys.contains(key) {
            var message = "is not a Live Activity aps key; the phone ignores it"
            if Self.alertPushKeys.contains(key) {
                message = "belongs to ordinary alert pushes; Live Activity pushes ignore it\(key == "sound" ? " (put sound inside alert)" : "")"
            } else if let suggestion = NameSuggestion.closest(to: key, among: Self.apsKeys).first {
                message += ". Did you mean '\(suggestion)'?"
            }
            problems.append(PayloadProblem(.unknownKey, at: "aps." + key, message, severity: .warning))
        }

        checkSizes(root: root, aps: aps, bodyBytes: json.count, into: &report, problems: &problems)
        report.problems += problems
    }

    func checkAlert(_ alert: JSONValue, isStart: Bool, into problems: inout [PayloadProblem]) {
        guard case .object(let members) = alert else {
            problems.append(
                PayloadProblem(
                    .typeMismatch, at: "aps.alert",
                    "a Live Activity alert is an object {\"title\", \"body\", \"sound\"}, found \(alert.kindDescription)"))
            return
        }
        if let title = members["title"] {
            checkAlertText(title, at: "aps.alert.title", into: &problems)
        } else if isStart {
            problems.append(PayloadProblem(.missingKey, at: "aps.alert.title", "is missing: a start's alert needs a title"))
        }
        if let body = members["body"] { checkAlertText(body, at: "aps.alert.body", into: &problems) }
        if let sound = members["sound"], sound.stringValue == nil, sound.objectValue == nil {
            problems.append(PayloadProblem(.typeMismatch, at: "aps.alert.sound", "expected a sound file name, found \(sound.kindDescription)"))
        }
        for key in members.keys.sorted() where !["title", "body", "sound"].contains(key) {
            problems.append(
                PayloadProblem(.unknownKey, at: "aps.alert." + key, "a Live Activity alert reads title, body and sound only", severity: .warning))
        }
    }

    func checkAlertText(_ text: JSONValue, at path: String, into problems: inout [PayloadProblem]) {
        switch text {
        case .string:
            break
        case .object(let members):
            if members["loc-key"]?.stringValue == nil {
                problems.append(
                    PayloadProblem(
                        .missingKey, at: path + ".loc-key",
                        "a localized text is {\"loc-key\": \"…\", \"loc-args\": [\"…\"]}; loc-key must be a string"))
            }
            if let arguments = members["loc-args"] {
                guard case .array(let items) = arguments, items.allSatisfy({ $0.stringValue != nil }) else {
                    problems.append(PayloadProblem(.typeMismatch, at: path + ".loc-args", "expected an array of strings"))
                    return
                }
            }
        default:
            problems.append(
                PayloadProblem(.typeMismatch, at: path, "expected a string or {\"loc-key\", \"loc-args\"}, found \(text.kindDescription)"))
        }
    }

    /// Foundation's description of where the JSON broke, e.g. "around line 3, column 7".
    static func syntaxDetail(_ error: DecodingError) -> String {
        guard case .dataCorrupted(let context) = error, let underlying = context.underlyingError else { return "" }
        let text = (underlying as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(underlying)"
        return ": " + text
    }
}
