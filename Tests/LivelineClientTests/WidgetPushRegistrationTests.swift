import Foundation
import LivelineClient
import Testing

/// `docs/sdk.md`, "Widget pushes": what a widget extension hands its server.
@Suite struct WidgetPushRegistrationTests {
    @Test func theTokenIsLowerCaseHexAndTheKindsSortedOnce() {
        let registration = WidgetPushRegistration(token: Data([0x00, 0xAB, 0x7f, 0xff]), kinds: ["trip", "shopping", "trip", ""])
        #expect(registration.token == "00ab7fff")
        #expect(registration.kinds == ["shopping", "trip"], "two widgets of one kind are one kind; an empty kind is none")
        #expect(WidgetPushRegistration(hexToken: "00AB7FFF", kinds: ["shopping", "trip"]) == registration)
        #expect(registration.description == "widget push token 00ab7fff… for shopping, trip")
    }
}
