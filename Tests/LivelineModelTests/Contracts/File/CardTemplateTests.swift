import Foundation
import LivelineModel
import Testing

/// A file's card fills its placeholders from the documents; without one, a file draws the plain
/// card a Swift contract draws by default (`docs/contracts.md`, "Contract files").
@Suite struct CardTemplateTests {
    static let attributes: JSONValue = ["orderId": "A-17", "restaurant": "Pizzeria Roma"]
    /// 800000000 s after 2001-01-01 00:00:00 UTC is 2026-05-09 06:13:20 UTC.
    static let state: JSONValue = [
        "status": "onTheWay", "eta": 800_000_000, "items": [["name": "Margherita", "quantity": 2]], "total": .double(21.5), "paid": true,
    ]

    @Test func placeholdersTakeStateKeysAndAttributes() {
        let card = CardTemplate(
            lockScreen: "{attributes.restaurant}: {status}\n{total} € · paid {paid}", compactLeading: "{status}", compactTrailing: "{eta}",
            expanded: "{items}")
        let drawn = card.render(attributes: Self.attributes, contentState: Self.state, badge: " (ended)", schema: DeliveryActivityAttributes.schema)
        #expect(drawn.lockScreen == "Pizzeria Roma: onTheWay (ended)\n21.5 € · paid true")
        #expect(drawn.compactLeading == "onTheWay")
        #expect(drawn.compactTrailing == "06:13", "a Date key as its UTC time")
        #expect(drawn.expanded == #"[{"name":"Margherita","quantity":2}]"#)
    }

    @Test func withoutTheSchemaADateIsItsNumber() {
        let drawn = CardTemplate(lockScreen: "{eta}").render(attributes: Self.attributes, contentState: Self.state, badge: "")
        #expect(drawn.lockScreen == "800000000")
    }

    @Test func missingAndNullValuesShowADash() {
        let card = CardTemplate(lockScreen: "{eta} {attributes.nothing} {nothing}", compactLeading: "{attributes.orderId}")
        let drawn = card.render(attributes: Self.attributes, contentState: ["eta": nil], badge: "", schema: DeliveryActivityAttributes.schema)
        #expect(drawn.lockScreen == "– – –")
        #expect(drawn.compactLeading == "A-17")
    }

    @Test func doubleBracesAreALiteralBrace() {
        let drawn = CardTemplate(lockScreen: "{{status}} is {status}").render(attributes: [:], contentState: Self.state, badge: "")
        #expect(drawn.lockScreen == "{status}} is onTheWay")
    }

    @Test func timesAreTheUTCTimeOfDay() {
        let schema = ContractSchema(attributes: [], contentState: [ContractField("at", .date)])
        func time(_ seconds: JSONValue) -> String {
            CardTemplate(lockScreen: "{at}").render(attributes: [:], contentState: ["at": seconds], badge: "", schema: schema).lockScreen
        }
        #expect(time(0) == "00:00")
        #expect(time(.double(86_399.9)) == "23:59")
        #expect(time(-60) == "23:59", "the last minute before 2001")
        #expect(time(.double(1e300)) == "1e+300")
    }

    /// The plain card equals the one `LiveActivityContract.card` draws for the same state.
    struct Parcel: LiveActivityContract {
        struct ContentState: Codable, Hashable, Sendable {
            var stops: Int
            var courier: String?
            var late: Bool
        }
        var parcel: String

        static let typeName = "Parcel"
        static let version = 1
        static let schema = ContractSchema(attributes: [ContractField("parcel", .string)], contentState: [])
        static let example = Parcel(parcel: "P-1")
        static let exampleContentState = ContentState(stops: 3, courier: "Ana", late: false)
    }

    @Test func thePlainCardIsTheOneASwiftContractDraws() throws {
        let state: JSONValue = ["stops": 3, "courier": "Ana", "late": false]
        let swift = try #require(
            Parcel.card(attributes: Data(#"{"parcel":"P-1"}"#.utf8), contentState: state.compactJSON, badge: " (stale)"))
        let plain = CardTemplate.plain(typeName: "Parcel", attributes: ["parcel": "P-1"], contentState: state, badge: " (stale)")
        #expect(plain == swift)
        #expect(plain.lockScreen == "Parcel (stale)\ncourier: \"Ana\"\nlate: false\nstops: 3")
    }
}
