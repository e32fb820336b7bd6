import Foundation
import LivelineModel
import LivelineShoppingModel
import LivelineTransitModel
import Testing

/// The check before every send (`docs/contracts.md`, "Contract rules the server enforces before any
/// push"; `docs/apns.md` §1.5; `docs/devices.md`).
struct PayloadCheckTests {
    let check = PayloadCheck(destination: .device, now: .exampleNow, registry: .builtIn)
    static let trip = { () -> Data in (try? Fixture.data("TripLiveActivityAttributes", version: 1)) ?? Data() }()
    static let shopping = { () -> Data in (try? Fixture.data("ShoppingActivityAttributes", version: 1)) ?? Data() }()

    // MARK: The examples of docs/contracts.md pass

    @Test func everyExamplePayloadIsAccepted() throws {
        let examples = try Fixture.examplePayloads()
        #expect(examples.count >= 3)
        for url in examples {
            let report = check.check(json: try Data(contentsOf: url))
            #expect(report.isAccepted, "\(url.lastPathComponent): \(report.errors)")
            #expect(report.contractName != nil)
        }
    }

    @Test func examplesPassWhenTheTypeIsGivenExplicitly() throws {
        for name in ContractRegistry.builtIn.names {
            let report = check.check(json: try Fixture.data(name, version: 1), typeName: name)
            #expect(report.isAccepted, "\(name): \(report.errors)")
            #expect(report.contractName == name)
        }
    }

    @Test func updateThatCarriesAttributesIsAcceptedWithWarnings() {
        let report = check.check(json: Self.shopping)
        #expect(report.isAccepted)
        #expect(Set(report.problems(.ignoredKey).map(\.keyPath)) == ["aps.attributes", "aps.attributes-type"])
    }

    // MARK: What a phone would drop

    @Test func renamedKeyIsMissingAndNamedAsTheLikelyRename() throws {
        let json = try JSONEdit.editing(Self.trip, "content-state") { $0["nextstop"] = $0.removeValue(forKey: "nextStop") }
        let report = check.check(json: json)
        #expect(!report.isAccepted)
        let missing = try #require(report.problems(.missingKey).first)
        #expect(missing.keyPath == "aps.content-state.nextStop")
        #expect(missing.message.contains("'nextstop'"))
        #expect(report.problems(.unknownKey).first?.message.contains("Did you mean 'nextStop'") == true)
    }

    @Test func removedRequiredKeyIsMissing() throws {
        let json = try JSONEdit.editing(Self.shopping, "content-state") { $0["rev"] = nil }
        let report = check.check(json: json)
        #expect(report.errors.map(\.keyPath) == ["aps.content-state.rev"])
        #expect(report.errors.first?.code == .missingKey)
        #expect(report.errors.first?.message.contains("drops the whole push") == true)
    }

    @Test func removedOptionalKeyIsFine() throws {
        let json = try JSONEdit.editing(Self.shopping, "content-state") { $0["lastEventText"] = nil }
        #expect(check.check(json: json).isAccepted)
    }

    @Test func dateAsISOStringIsATypeMismatchWithTheRightNumber() throws {
        let json = try JSONEdit.editing(Self.trip, "content-state") { $0["nextStopTime"] = .string("2026-06-18T07:42:00Z") }
        let report = check.check(json: json)
        let problem = try #require(report.problems(.dateAsString).first)
        #expect(problem.keyPath == "aps.content-state.nextStopTime")
        #expect(problem.message.contains("seconds since 2001-01-01"))
        #expect(problem.message.contains("803461320"))
        #expect(report.errors.count == 1, "the decoder's own failure at the same key is not repeated: \(report.errors)")
    }

    @Test func dateAsUnixSecondsIsImplausiblyFarAway() throws {
        let json = try JSONEdit.editing(Self.trip, "content-state") { $0["nextStopTime"] = .int(1_781_768_520) }
        let report = check.check(json: json)
        let problem = try #require(report.problems(.implausibleDate).first)
        #expect(problem.keyPath == "aps.content-state.nextStopTime")
        #expect(problem.message.contains("2057-06-18"))
        #expect(problem.message.contains("UNIX seconds"))
        #expect(problem.message.contains("send 803461320"))
        #expect(!report.isAccepted)
    }

    @Test func dateAsUnixMillisecondsIsImplausibleToo() throws {
        let json = try JSONEdit.editing(Self.trip, "content-state") { $0["nextStopTime"] = .int(1_781_768_520_000) }
        let problem = try #require(check.check(json: json).problems(.implausibleDate).first)
        #expect(problem.message.contains("UNIX milliseconds"))
    }

    @Test func plausibilityFollowsTheInjectedClock() throws {
        // Seen from 2057 the UNIX-seconds value is plausible, and the right one is not.
        let in2057 = PayloadCheck(now: Date(timeIntervalSinceReferenceDate: 1_781_768_520), registry: .builtIn)
        let unixSeconds = try JSONEdit.editing(Self.trip, "content-state") { $0["nextStopTime"] = .int(1_781_768_520) }
        #expect(in2057.check(json: unixSeconds).problems(.implausibleDate).isEmpty)
        #expect(!in2057.check(json: Self.trip).problems(.implausibleDate).isEmpty)
    }

    @Test func fiveThousandBytesOfContentStateAreOverBothLimits() throws {
        let json = try JSONEdit.editing(Self.shopping, "content-state") { $0["lastEventText"] = .string(String(repeating: "x", count: 5000)) }
        let report = check.check(json: json)
        let body = try #require(report.problems(.bodyTooLarge).first)
        #expect(body.message.contains("\(json.count) bytes"))
        #expect(body.message.contains("largest fields: aps.content-state.lastEventText (5018 bytes)"))
        let activity = try #require(report.problems(.activityDataTooLarge).first)
        #expect(activity.message.contains("4096"))
        #expect(activity.message.contains("aps.content-state.lastEventText"))
        #expect(report.activityDataBytes.map { $0 > 5000 } == true)
    }

    @Test func broadcastAllowsFiveKilobytes() throws {
        let json = try JSONEdit.editingAPS(Self.trip) { aps in
            aps["event"] = .string("update")
            aps["alert"] = .object(["title": .string(String(repeating: "y", count: 4300))])
            aps["attributes"] = nil
            aps["attributes-type"] = nil
            aps["input-push-token"] = nil
        }
        let device = check.check(json: json, typeName: "TripLiveActivityAttributes")
        let broadcast = PayloadCheck(destination: .broadcast, now: .exampleNow, registry: .builtIn).check(
            json: json, typeName: "TripLiveActivityAttributes")
        #expect(device.problems(.bodyTooLarge).count == 1)
        #expect(broadcast.isAccepted, "\(broadcast.errors)")
        #expect(broadcast.bodyLimit == 5120)
    }

    @Test func broadcastCannotStart() {
        let report = PayloadCheck(destination: .broadcast, now: .exampleNow, registry: .builtIn).check(json: Self.trip)
        #expect(report.problems(.startOnBroadcast).count == 1)
    }

    // MARK: Envelope rules

    @Test func startNeedsTypeAttributesAndAlertWithTitle() throws {
        let json = try JSONEdit.editingAPS(Self.trip) { aps in
            aps["attributes"] = nil
            aps["alert"] = .object(["body": .string("no title")])
        }
        let report = check.check(json: json, typeName: "TripLiveActivityAttributes")
        #expect(Set(report.problems(.missingKey).map(\.keyPath)) == ["aps.attributes", "aps.alert.title"])
        let noType = try JSONEdit.editingAPS(Self.trip) {
            $0["attributes-type"] = nil; $0["alert"] = nil
        }
        let second = check.check(json: noType, typeName: "TripLiveActivityAttributes")
        #expect(Set(second.problems(.missingKey).map(\.keyPath)) == ["aps.attributes-type", "aps.alert"])
    }

    @Test func dismissalDateOnlyWithEnd() throws {
        let onUpdate = try JSONEdit.editingAPS(Self.shopping) { $0["dismissal-date"] = .int(1_767_577_600) }
        #expect(check.check(json: onUpdate).problems(.dismissalDateNotOnEnd).count == 1)
        let onEnd = try JSONEdit.editingAPS(Self.shopping) {
            $0["event"] = .string("end")
            $0["dismissal-date"] = .int(1_767_577_600)
        }
        let report = check.check(json: onEnd)
        #expect(report.problems(.dismissalDateNotOnEnd).isEmpty)
        #expect(report.isAccepted, "\(report.errors)")
    }

    @Test func staleDateInThePastRefusesAStartButOnlyWarnsOnUpdate() throws {
        let past = JSONValue.int(1_781_760_000)  // 2026-06-18 05:46, before exampleNow
        let start = try JSONEdit.editingAPS(Self.trip) { $0["stale-date"] = past }
        let refused = try #require(check.check(json: start).problems(.staleDateInPast).first)
        #expect(refused.severity == .error)
        let update = try JSONEdit.editingAPS(Self.shopping) { $0["stale-date"] = past }
        #expect(check.check(json: update).problems(.staleDateInPast).first?.severity == .warning)
        let future = try JSONEdit.editingAPS(Self.trip) { $0["stale-date"] = .int(1_781_787_600) }  // 13:00, after exampleNow
        #expect(check.check(json: future).isAccepted)
    }

    @Test func pushTokenAndChannelNeverTogether() throws {
        let json = try JSONEdit.editingAPS(Self.trip) { $0["input-push-channel"] = .string("dHN0LXNyY2gtY2hubA==") }
        #expect(check.check(json: json).problems(.pushTokenAndChannel).count == 1)
        let channelOnly = try JSONEdit.editingAPS(Self.trip) {
            $0["input-push-token"] = nil
            $0["input-push-channel"] = .string("dHN0LXNyY2gtY2hubA==")
        }
        #expect(check.check(json: channelOnly).isAccepted)
    }

    @Test func headerDatesMustBeUnixSecondsNotMilliseconds() throws {
        let json = try JSONEdit.editingAPS(Self.trip) {
            $0["timestamp"] = .int(1_781_768_280_000)
            $0["stale-date"] = .int(1_781_773_200_000)
        }
        let problems = check.check(json: json).problems(.dateInMilliseconds)
        #expect(problems.map(\.keyPath) == ["aps.timestamp", "aps.stale-date"])
        #expect(problems.first?.message.contains("send 1781768280") == true)
        let swiftSeconds = try JSONEdit.editingAPS(Self.trip) { $0["timestamp"] = .int(803_461_080) }
        #expect(check.check(json: swiftSeconds).problems(.dateNotUnixSeconds).first?.message.contains("send 1781768280") == true)
    }

    @Test func unknownAttributesTypeIsRefusedWithASuggestion() throws {
        let json = try JSONEdit.editingAPS(Self.trip) { $0["attributes-type"] = .string("TripActivityAttributes") }
        let problem = try #require(check.check(json: json).problems(.unknownAttributesType).first)
        #expect(problem.keyPath == "aps.attributes-type")
        #expect(problem.message.contains("Did you mean 'TripLiveActivityAttributes'"))
    }

    @Test func attributesTypeThatContradictsTheGivenTypeIsRefused() {
        let report = check.check(json: Self.trip, typeName: "ShoppingActivityAttributes")
        #expect(report.problems(.attributesTypeMismatch).count == 1)
    }

    @Test func updateWithoutTypeNeedsAnExplicitContract() throws {
        let json = try JSONEdit.editingAPS(Self.shopping) {
            $0["attributes-type"] = nil; $0["attributes"] = nil
        }
        #expect(check.check(json: json).problems(.unknownContract).count == 1)
        #expect(check.check(json: json, typeName: "ShoppingActivityAttributes").isAccepted)
        #expect(check.check(json: json, typeName: "Nope").problems(.unknownContract).count == 1)
    }

    @Test func invalidJSONIsNamed() {
        let report = check.check(json: Data(#"{"aps": {"event": "update",}"#.utf8))
        #expect(report.problems.map(\.code) == [.invalidJSON])
    }

    @Test func everyProblemIsReportedNotJustTheFirst() throws {
        let json = try JSONEdit.editingAPS(Self.trip) { aps in
            aps["timestamp"] = .int(1_781_768_280_000)
            aps["dismissal-date"] = .int(1_781_773_200)
            aps["input-push-channel"] = .string("dHN0LXNyY2gtY2hubA==")
            aps["interruption-level"] = .string("active")
            var state = aps["content-state"]?.objectValue ?? [:]
            state["nextStop"] = nil
            state["delay"] = .string("2")
            state["occupancy"] = .string("crowded")
            state["phase"] = .null
            state["nextStopTime"] = .string("2026-06-18T07:42:00Z")
            aps["content-state"] = .object(state)
        }
        let report = check.check(json: json)
        let codes = Set(report.errors.map(\.code))
        #expect(
            codes == [
                .dateInMilliseconds, .dismissalDateNotOnEnd, .pushTokenAndChannel, .missingKey, .typeMismatch, .invalidValue, .nullValue,
                .dateAsString,
            ])
        #expect(report.errors.count == 8)
        #expect(report.problems(.unknownKey).map(\.keyPath) == ["aps.interruption-level"])
        #expect(report.problems.allSatisfy { !$0.message.isEmpty })
    }

    @Test func nestedObjectsAreCheckedWithTheirIndex() throws {
        let json = try JSONEdit.editing(Self.shopping, "content-state") { state in
            state["nextOpen"] = .array([.object(["id": .int(42), "label": .string("Bananen")]), .object(["id": .string("43")])])
        }
        let report = check.check(json: json)
        #expect(Set(report.errors.map(\.keyPath)) == ["aps.content-state.nextOpen[1].id", "aps.content-state.nextOpen[1].label"])
    }

    // MARK: Typed payloads

    @Test func typedPayloadIsEncodedThenCheckedAsBytes() throws {
        let payload = LiveActivityPayload<TripLiveActivityAttributes>.start(
            attributes: .example, contentState: TripLiveActivityAttributes.exampleContentState,
            alert: LiveActivityAlert(title: "RNV 5"), timestamp: .exampleNow, inputPushToken: true
        )
        let body = try check.encode(payload)
        // Key order is not stable across encodes on Linux; compare as JSON.
        #expect(try JSONValue(json: body) == JSONValue(json: payload.encoded()))
        #expect(check.check(payload).isAccepted)
    }

    @Test func typedPayloadWithUnixSecondsDateIsRefusedBeforeSending() throws {
        var state = TripLiveActivityAttributes.exampleContentState
        state.nextStopTime = Date(timeIntervalSinceReferenceDate: 1_781_768_520)  // the classic mistake
        let payload = LiveActivityPayload<TripLiveActivityAttributes>.update(contentState: state, timestamp: .exampleNow)
        do {
            _ = try check.encode(payload)
            Issue.record("an implausible date must be refused")
        } catch {
            #expect(error.report.problems(.implausibleDate).count == 1)
            #expect(error.description.contains("aps.content-state.nextStopTime"))
        }
    }

    @Test func typedStartWithoutAlertAndWithDismissalDateIsRefused() {
        var payload = LiveActivityPayload<ShoppingActivityAttributes>.update(
            contentState: ShoppingActivityAttributes.exampleContentState, timestamp: .exampleNow
        )
        payload.event = .start
        payload.attributes = .example
        payload.dismissalDate = .exampleNow
        let report = check.check(payload)
        #expect(report.problems(.missingKey).map(\.keyPath) == ["aps.alert"])
        #expect(report.problems(.dismissalDateNotOnEnd).count == 1)
    }

    // MARK: Registry (PUT /v1/contexts bodies)

    @Test func registryChecksContentStateByTypeName() throws {
        let good = try JSONEncoder().encode(ShoppingActivityAttributes.exampleContentState)
        #expect(ContractRegistry.builtIn.checkContentState(json: good, typeName: "ShoppingActivityAttributes", now: .exampleNow).isEmpty)
        let bad = Data(#"{"open": "7"}"#.utf8)
        let problems = ContractRegistry.builtIn.checkContentState(json: bad, typeName: "ShoppingActivityAttributes", now: .exampleNow)
        #expect(problems.contains { $0.keyPath == "open" && $0.code == .typeMismatch })
        #expect(problems.contains { $0.keyPath == "rev" && $0.code == .missingKey })
        let unknown = ContractRegistry.builtIn.checkContentState(json: good, typeName: "shoppingactivityattributes", now: .exampleNow)
        #expect(unknown.first?.message.contains("Did you mean 'ShoppingActivityAttributes'") == true)
        let attributes = ContractRegistry.builtIn.checkAttributes(
            json: Data(#"{"week": 5}"#.utf8), typeName: "ShoppingActivityAttributes", now: .exampleNow)
        #expect(attributes.map(\.keyPath) == ["week"])
    }
}

extension PayloadCheckTests {
    @Test(arguments: [1e300, -1e300, 1e40, 1e17, -1e17, Double(Int64.max), 1.7976931348623157e308])
    func extremeDateNumbersAreRefusedWithoutCrashing(_ value: Double) throws {
        let json = try JSONEdit.editing(Self.trip, "content-state") { $0["nextStopTime"] = .double(value) }
        let report = check.check(json: json)
        #expect(!report.isAccepted)
        let problem = try #require(report.problems(.implausibleDate).first)
        #expect(problem.keyPath == "aps.content-state.nextStopTime")
    }

    @Test func aTimestampFarAheadRefusesAnUpdateButNotAnEnd() throws {
        let ahead = Int(Date.exampleNow.timeIntervalSince1970) + 9 * 3600
        let update = try JSONEdit.editingAPS(Self.shopping) { $0["timestamp"] = .int(ahead) }
        let refused = check.check(json: update)
        #expect(!refused.isAccepted)
        #expect(refused.errors.map(\.code) == [.timestampInFuture])
        let end = try JSONEdit.editingAPS(Self.shopping) {
            $0["timestamp"] = .int(ahead)
            $0["event"] = "end"
            $0["attributes"] = nil
            $0["attributes-type"] = nil
        }
        let accepted = check.check(json: end, typeName: "ShoppingActivityAttributes")
        #expect(accepted.isAccepted, "\(accepted.errors)")
        #expect(accepted.problems(.timestampInFuture).first?.severity == .warning)
    }
}
