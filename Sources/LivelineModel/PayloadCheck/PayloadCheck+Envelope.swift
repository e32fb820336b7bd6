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

    /// One Live Activity `aps` as its rules read it: the event and the contract are read first,
    /// the other keys' rules depend on them.
    struct Envelope {
        let aps: [String: JSONValue]
        /// The whole document, as sent.
        let json: Data
        let event: LiveActivityEvent?
        let contract: AnyContract?
        var isStart: Bool { event == .start }
        var eventName: String { event?.rawValue ?? "this event" }

        /// `key`, read on start only, on another known event: the phone ignores it.
        func readOnStartOnly(_ key: String, _ message: String? = nil) -> PayloadProblem? {
            guard aps[key] != nil, event != nil, !isStart else { return nil }
            return PayloadProblem(
                .ignoredKey, at: "aps." + key, message ?? "is only read on start; the phone ignores it on \(eventName)", severity: .warning)
        }
    }

    /// The rules of the `aps` keys after `attributes-type`, in the order their problems are told.
    static let envelopeRules: [@Sendable (PayloadCheck) -> (Envelope) -> [PayloadProblem]] = [
        contentStateProblems, attributesProblems, alertProblems, staleDateProblems, dismissalDateProblems, relevanceScoreProblems,
        inputPushProblems, unreadKeyProblems,
    ]

    func checkLiveActivity(
        _ json: Data, document parsed: JSONValue? = nil, contract explicit: AnyContract?, into report: inout PayloadCheckReport
    ) {
        guard let (root, aps) = Self.envelope(json, parsed: parsed, into: &report) else { return }
        var eventProblems: [PayloadProblem] = []
        let event = readEvent(aps, into: &eventProblems)
        report.event = event?.rawValue
        var contractProblems: [PayloadProblem] = []
        let contract = readContract(aps, event: event, explicit: explicit, into: &contractProblems)
        report.contractName = contract?.typeName
        let envelope = Envelope(aps: aps, json: json, event: event, contract: contract)
        var problems = eventProblems + timestampProblems(envelope) + contractProblems
        for rule in Self.envelopeRules { problems += rule(self)(envelope) }
        checkSizes(root: root, aps: aps, bodyBytes: json.count, into: &report, problems: &problems)
        report.problems += problems
    }

    /// The document's root and its `aps` object; nil (with the problem told) when there is none.
    static func envelope(
        _ json: Data, parsed: JSONValue?, into report: inout PayloadCheckReport
    ) -> (
        root: [String: JSONValue], aps: [String: JSONValue]
    )? {
        let document: JSONValue
        do {
            document = try parsed ?? JSONValue(json: json)
        } catch let error as DecodingError {
            report.problems.append(PayloadProblem(.invalidJSON, at: "", "is not valid JSON\(Self.syntaxDetail(error))"))
            return nil
        } catch {
            report.problems.append(PayloadProblem(.invalidJSON, at: "", "is not valid JSON"))
            return nil
        }
        guard case .object(let root) = document else {
            report.problems.append(PayloadProblem(.typeMismatch, at: "", "must be a JSON object {\"aps\": {…}}, found \(document.kindDescription)"))
            return nil
        }
        guard let apsValue = root["aps"] else {
            var message = "is missing: a Live Activity push is {\"aps\": {\"event\", \"timestamp\", \"content-state\", …}}"
            if let other = NameSuggestion.closest(to: "aps", among: Array(root.keys)).first { message += "; found '\(other)'" }
            report.problems.append(PayloadProblem(.missingKey, at: "aps", message))
            return nil
        }
        guard case .object(let aps) = apsValue else {
            report.problems.append(PayloadProblem(.typeMismatch, at: "aps", "must be an object, found \(apsValue.kindDescription)"))
            return nil
        }
        return (root, aps)
    }

    /// `aps.event`, and whether this destination may carry it (a broadcast never starts).
    func readEvent(_ aps: [String: JSONValue], into problems: inout [PayloadProblem]) -> LiveActivityEvent? {
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
        if event == .start, destination == .broadcast {
            problems.append(
                PayloadProblem(
                    .startOnBroadcast, at: "aps.event",
                    "a broadcast push cannot start an activity; start it with a device push-to-start token (it may subscribe with input-push-channel)"
                ))
        }
        return event
    }

    /// `aps.timestamp`: there, a date, and not so far ahead that the phone drops the push
    /// (docs/devices.md: a start or update stamped more than 8 h ahead is dropped; an end is always taken).
    func timestampProblems(_ envelope: Envelope) -> [PayloadProblem] {
        guard let value = envelope.aps["timestamp"] else {
            return [
                PayloadProblem(
                    .missingKey, at: "aps.timestamp",
                    "is missing: set it to the current time in UNIX seconds; the phone keeps only the push with the newest timestamp")
            ]
        }
        let (date, problem) = DateRules.headerDate(value, at: "aps.timestamp")
        var problems = problem.map { [$0] } ?? []
        if let date, date.timeIntervalSince(now) > DateRules.futureTimestampLimit {
            problems.append(
                PayloadProblem(
                    .timestampInFuture, at: "aps.timestamp",
                    "is \(DateRules.iso(date)), more than 8 hours ahead of now (\(DateRules.iso(now))); a phone drops a start or update that far in the future",
                    severity: envelope.event == .end ? .warning : .error))
        }
        return problems
    }

    /// `aps.attributes-type` and the contract the payload is checked against: the one asked for,
    /// else the one the type names.
    func readContract(
        _ aps: [String: JSONValue], event: LiveActivityEvent?, explicit: AnyContract?, into problems: inout [PayloadProblem]
    ) -> AnyContract? {
        var contract = explicit
        let isStart = event == .start
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
                        .ignoredKey, at: "aps.attributes-type", "is only read on start; the phone ignores it on \(event?.rawValue ?? "")",
                        severity: .warning))
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
        if contract == nil, aps["attributes-type"] == nil {
            problems.append(
                PayloadProblem(
                    .unknownContract, at: "",
                    "cannot tell which contract this payload is for: give the type name (liveline contracts check FILE --type TYPE) or add aps.attributes-type; known: \(registry.names.joined(separator: ", "))"
                ))
        }
        return contract
    }

    /// `aps.content-state`: there on every event, and what the contract's state decodes.
    func contentStateProblems(_ envelope: Envelope) -> [PayloadProblem] {
        guard let state = envelope.aps["content-state"] else {
            var message = "is missing: every event carries the whole content state (on end, the final one)"
            if let other = NameSuggestion.closest(to: "content-state", among: Array(envelope.aps.keys)).first {
                message += "; the payload has '\(other)': the key is spelt content-state"
            }
            return [PayloadProblem(.missingKey, at: "aps.content-state", message)]
        }
        if let contract = envelope.contract {
            return contract.contentStateProblems(state, document: envelope.json, path: ["aps", "content-state"], now: now)
        }
        return state.objectValue == nil
            ? [PayloadProblem(.typeMismatch, at: "aps.content-state", "must be an object, found \(state.kindDescription)")] : []
    }

    /// `aps.attributes`: on a start, what the contract's attributes decode; read on start only.
    func attributesProblems(_ envelope: Envelope) -> [PayloadProblem] {
        guard let attributes = envelope.aps["attributes"] else {
            guard envelope.isStart else { return [] }
            return [
                PayloadProblem(
                    .missingKey, at: "aps.attributes",
                    "is missing: a start carries the static attributes\(envelope.contract.map { " of \($0.typeName)" } ?? "")")
            ]
        }
        return [envelope.readOnStartOnly("attributes")].compactMap { $0 }
            + (envelope.contract?.attributesProblems(attributes, document: envelope.json, path: ["aps", "attributes"], now: now) ?? [])
    }

    /// `aps.alert`: a start needs one with a title.
    func alertProblems(_ envelope: Envelope) -> [PayloadProblem] {
        var problems: [PayloadProblem] = []
        if let alert = envelope.aps["alert"] {
            checkAlert(alert, isStart: envelope.isStart, into: &problems)
        } else if envelope.isStart {
            problems.append(
                PayloadProblem(.missingKey, at: "aps.alert", "is missing: a start needs an alert with a title ({\"title\": …, \"body\": …})"))
        }
        return problems
    }

    /// `aps.stale-date`: a date, not on end, and not past (a start created stale is never presented).
    func staleDateProblems(_ envelope: Envelope) -> [PayloadProblem] {
        guard let value = envelope.aps["stale-date"] else { return [] }
        let (date, problem) = DateRules.headerDate(value, at: "aps.stale-date")
        var problems = problem.map { [$0] } ?? []
        if envelope.event == .end {
            problems.append(PayloadProblem(.ignoredKey, at: "aps.stale-date", "has no effect on end (use dismissal-date)", severity: .warning))
        } else if let date, date < now {
            problems.append(
                envelope.isStart
                    ? PayloadProblem(
                        .staleDateInPast, at: "aps.stale-date",
                        "is \(DateRules.iso(date)), already past (now \(DateRules.iso(now))); a start with a past stale date is created stale and never presented"
                    )
                    : PayloadProblem(
                        .staleDateInPast, at: "aps.stale-date", "is \(DateRules.iso(date)), already past; the card shows as out of date at once",
                        severity: .warning))
        }
        return problems
    }

    /// `aps.dismissal-date`: a date, on end only.
    func dismissalDateProblems(_ envelope: Envelope) -> [PayloadProblem] {
        guard let value = envelope.aps["dismissal-date"] else { return [] }
        let (_, problem) = DateRules.headerDate(value, at: "aps.dismissal-date")
        var problems = problem.map { [$0] } ?? []
        if envelope.event != nil, envelope.event != .end {
            problems.append(
                PayloadProblem(
                    .dismissalDateNotOnEnd, at: "aps.dismissal-date",
                    "only end takes a dismissal-date, not \(envelope.eventName); send it with the end push"))
        }
        return problems
    }

    /// `aps.relevance-score`: a number.
    func relevanceScoreProblems(_ envelope: Envelope) -> [PayloadProblem] {
        guard let score = envelope.aps["relevance-score"], score.numberValue == nil else { return [] }
        return [PayloadProblem(.typeMismatch, at: "aps.relevance-score", "expected a number, found \(score.kindDescription)")]
    }

    /// `aps.input-push-token` (1) or `aps.input-push-channel` (a channel id APNs returned), never
    /// both, read on start only.
    func inputPushProblems(_ envelope: Envelope) -> [PayloadProblem] {
        let token = envelope.aps["input-push-token"]
        let channel = envelope.aps["input-push-channel"]
        var problems: [PayloadProblem] = []
        if token != nil, channel != nil {
            problems.append(
                PayloadProblem(
                    .pushTokenAndChannel, at: "aps",
                    "has both input-push-token and input-push-channel; they never go together: ask for an update token or subscribe to a channel"))
        }
        if let token, token != .int(1) {
            problems.append(PayloadProblem(.invalidValue, at: "aps.input-push-token", "must be 1, found \(token)"))
        }
        problems += [envelope.readOnStartOnly("input-push-token", "is only read on start")].compactMap { $0 }
        if let channel, channel.stringValue.map({ $0.isEmpty || Data(base64Encoded: $0) == nil }) ?? true {
            problems.append(
                PayloadProblem(.invalidValue, at: "aps.input-push-channel", "must be the base64 channel id that APNs returned, found \(channel)"))
        }
        problems += [envelope.readOnStartOnly("input-push-channel", "is only read on start")].compactMap { $0 }
        return problems
    }

    /// Keys of `aps` a Live Activity does not read: alert-push keys, and near misses of ours.
    func unreadKeyProblems(_ envelope: Envelope) -> [PayloadProblem] {
        envelope.aps.keys.sorted().filter { !Self.apsKeys.contains($0) }.map { key in
            var message = "is not a Live Activity aps key; the phone ignores it"
            if Self.alertPushKeys.contains(key) {
                message = "belongs to ordinary alert pushes; Live Activity pushes ignore it\(key == "sound" ? " (put sound inside alert)" : "")"
            } else if let suggestion = NameSuggestion.closest(to: key, among: Self.apsKeys).first {
                message += ". Did you mean '\(suggestion)'?"
            }
            return PayloadProblem(.unknownKey, at: "aps." + key, message, severity: .warning)
        }
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
