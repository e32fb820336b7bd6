import Foundation
import LivelineCookSuggestModel
import LivelineModel
import LivelineTransitModel
import Testing

/// The `aps` envelope: kebab-case keys, UNIX seconds in the header, Swift's default Date inside
/// the content state (`docs/apns.md` §1.5).
struct LiveActivityPayloadTests {
    typealias Trip = TripLiveActivityAttributes

    static func aps(_ payload: LiveActivityPayload<some LiveActivityContract>) throws -> [String: JSONValue] {
        try #require(try JSONValue(json: payload.encoded()).objectValue?["aps"]?.objectValue)
    }

    @Test func startCarriesTypeAttributesAlertAndKebabCaseKeys() throws {
        let payload = LiveActivityPayload<Trip>.start(
            attributes: Trip.example, contentState: Trip.exampleContentState,
            alert: LiveActivityAlert(title: "RNV 5", body: .localized(key: "NEXT_STOP %@", arguments: ["Bismarckplatz"]), sound: "default"),
            timestamp: Date(timeIntervalSince1970: 1_781_768_280.9), staleDate: Date(timeIntervalSince1970: 1_781_769_000),
            relevanceScore: 75, inputPushChannel: "dHN0LXNyY2gtY2hubA=="
        )
        let aps = try Self.aps(payload)
        #expect(aps["event"] == .string("start"))
        #expect(aps["timestamp"] == .int(1_781_768_280))
        #expect(aps["stale-date"] == .int(1_781_769_000))
        #expect(aps["relevance-score"] == .int(75))
        #expect(aps["attributes-type"] == .string("TripLiveActivityAttributes"))
        #expect(aps["attributes"]?.objectValue?["line"] == .string("RNV 5"))
        #expect(aps["content-state"]?.objectValue?["nextStopTime"] == .int(803_461_320))
        #expect(aps["input-push-channel"] == .string("dHN0LXNyY2gtY2hubA=="))
        #expect(aps["input-push-token"] == nil)
        #expect(aps["dismissal-date"] == nil)
        let alert = try #require(aps["alert"]?.objectValue)
        #expect(alert["title"] == .string("RNV 5"))
        #expect(alert["body"] == .object(["loc-key": .string("NEXT_STOP %@"), "loc-args": .array([.string("Bismarckplatz")])]))
        #expect(alert["sound"] == .string("default"))
    }

    @Test func updateAndEndCarryNoAttributes() throws {
        let update = try Self.aps(LiveActivityPayload<Trip>.update(contentState: Trip.exampleContentState, timestamp: .exampleNow))
        #expect(update["attributes"] == nil)
        #expect(update["attributes-type"] == nil)
        #expect(update["alert"] == nil)
        let end = try Self.aps(
            LiveActivityPayload<Trip>.end(
                contentState: Trip.exampleContentState, timestamp: .exampleNow, dismissalDate: Date(timeIntervalSince1970: 1_781_773_200)
            ))
        #expect(end["event"] == .string("end"))
        #expect(end["dismissal-date"] == .int(1_781_773_200))
    }

    @Test func inputPushTokenIsSentAsOne() throws {
        var payload = LiveActivityPayload<Trip>.start(
            attributes: Trip.example, contentState: Trip.exampleContentState, alert: LiveActivityAlert(title: "t"), timestamp: .exampleNow
        )
        payload.inputPushToken = true
        #expect(try Self.aps(payload)["input-push-token"] == .int(1))
        let decoded = try JSONDecoder().decode(LiveActivityPayload<Trip>.self, from: payload.encoded())
        #expect(decoded.inputPushToken)
        #expect(decoded.contentState == Trip.exampleContentState)
        #expect(decoded.attributes == Trip.example)
    }

    @Test func decodingRefusesAnotherContractsAttributesType() throws {
        let shopping = try Fixture.data("ShoppingActivityAttributes", version: 1)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LiveActivityPayload<CookSuggestActivityAttributes>.self, from: shopping) }
    }

    @Test func alertTextDecodesPlainAndLocalized() throws {
        let decoded = try JSONDecoder().decode([AlertText].self, from: Data(#"["Hi", {"loc-key": "K", "loc-args": ["a"]}, {"loc-key": "L"}]"#.utf8))
        #expect(decoded == [.plain("Hi"), .localized(key: "K", arguments: ["a"]), .localized(key: "L", arguments: [])])
    }
}
