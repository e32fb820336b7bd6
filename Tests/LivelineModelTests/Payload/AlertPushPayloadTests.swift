import Foundation
import LivelineModel
import Testing

/// The ordinary alert push: `aps` plus custom keys beside it (`docs/apns.md` §1.9).
struct AlertPushPayloadTests {
    @Test func deepLinkAndCustomKeysSitBesideAps() throws {
        let push = AlertPushPayload(
            title: "Einkauf", body: .localized(key: "SHOPPING_DONE %@", arguments: ["Dennis"]), sound: "default",
            threadID: "shopping-7", interruptionLevel: .timeSensitive, relevanceScore: 0.5, mutableContent: true,
            link: "/shopping/2026-01-05", custom: ["household": .int(7)]
        )
        let root = try #require(try JSONValue(json: push.encoded()).objectValue)
        #expect(root["link"] == .string("/shopping/2026-01-05"))
        #expect(root["household"] == .int(7))
        let aps = try #require(root["aps"]?.objectValue)
        #expect(aps["thread-id"] == .string("shopping-7"))
        #expect(aps["interruption-level"] == .string("time-sensitive"))
        #expect(aps["mutable-content"] == .int(1))
        #expect(aps["sound"] == .string("default"))
        let alert = try #require(aps["alert"]?.objectValue)
        #expect(alert["title"] == .string("Einkauf"))
        #expect(alert["loc-key"] == .string("SHOPPING_DONE %@"))
        #expect(alert["loc-args"] == .array([.string("Dennis")]))
        #expect(String(decoding: try push.encoded(), as: UTF8.self).contains(#""link":"/shopping/2026-01-05""#), "slashes are not escaped")

        let decoded = try JSONDecoder().decode(AlertPushPayload.self, from: push.encoded())
        #expect(decoded == push)
    }

    @Test func checkRefusesOversizedAlertAndOutOfRangeRelevance() {
        let push = AlertPushPayload(title: "t", body: .plain(String(repeating: "x", count: 4200)), relevanceScore: 50)
        let report = PayloadCheck(now: .exampleNow, registry: ContractRegistry([])).check(push)
        #expect(!report.isAccepted)
        #expect(report.problems(.bodyTooLarge).first?.message.contains("aps.alert") == true)
        #expect(report.problems(.invalidValue).map(\.keyPath) == ["aps.relevance-score"])
        #expect(PayloadCheck(now: .exampleNow, registry: ContractRegistry([])).check(AlertPushPayload(title: "ok", link: "/x")).isAccepted)
    }

    @Test func checkRefusesALinkThatIsNoAppPath() {
        for link in ["liveline://x", "https://example.com/x", "//example.com/x", "x/y", "/a b"] {
            let report = PayloadCheck(now: .exampleNow, registry: ContractRegistry([])).check(AlertPushPayload(title: "ok", link: link))
            #expect(report.problems(.invalidValue).map(\.keyPath) == ["link"], "\(link)")
        }
    }
}
