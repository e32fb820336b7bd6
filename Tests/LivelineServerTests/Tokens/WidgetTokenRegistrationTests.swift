import Foundation
import LivelineModel
import LivelineShoppingModel
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import Testing

/// `POST /api/apns/register` with a `widgets` token (`docs/api.md`, "Push tokens"): the
/// widget kinds it serves are stored with it; a kind the server does not know, none, or kinds on
/// another kind of token are a 400 naming `widget_kinds`, and nothing is stored.
@Suite struct WidgetTokenRegistrationTests {
    static let token = String(repeating: "ef", count: 32)
    static let other = String(repeating: "12", count: 32)

    func register(_ server: TestServer, _ bearer: String, _ json: String) throws -> TestHTTPConnection.Response {
        try server.request("POST", "/api/apns/register", token: bearer, json: json)
    }

    @Test func aWidgetsTokenIsStoredWithItsKindsAndReplacedPerDevice() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let kinds = #"["shopping","\#(ShoppingActivityAttributes.typeName)","shopping"]"#
        let first = try register(server, bearer, #"{"kind":"widgets","token":"\#(Self.token)","device_id":"d","widget_kinds":\#(kinds)}"#)
        #expect(first.status == 200, "\(first.text)")
        #expect(first.json?["outcome"] as? String == "created")
        let stored = try server.app.store.tokens.activeTokens(userID: user.id).filter { $0.kind == .widgets }
        #expect(stored.map(\.widgetKinds) == [[ShoppingActivityAttributes.typeName, "shopping"]])

        // The same token with other widgets: the kinds follow; a new token replaces it on the device.
        _ = try register(server, bearer, #"{"kind":"widgets","token":"\#(Self.token)","device_id":"d","widget_kinds":["shopping"]}"#)
        #expect(try server.app.store.tokens.activeTokens(userID: user.id).first { $0.kind == .widgets }?.widgetKinds == ["shopping"])
        let rotated = try register(server, bearer, #"{"kind":"widgets","token":"\#(Self.other)","device_id":"d","widget_kinds":["shopping"]}"#)
        #expect(rotated.json?["outcome"] as? String == "replaced")
        #expect(try server.app.store.tokens.activeTokens(userID: user.id).filter { $0.kind == .widgets }.map(\.token) == [Self.other])
    }

    @Test func badWidgetKindsAreA400NamingTheFieldAndStoreNothing() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let widgets = #"{"kind":"widgets","token":"\#(Self.token)","device_id":"d""#
        let tooMany = "[" + (0...64).map { _ in #""shopping""# }.joined(separator: ",") + "]"
        let cases: [(body: String, says: String)] = [
            (widgets + #","widget_kinds":["weather"]}"#, "widget_kinds[0] 'weather' is not a known widget kind"),
            (widgets + #","widget_kinds":["shopping","NoSuchActivityAttributes"]}"#, "widget_kinds[1] 'NoSuchActivityAttributes'"),
            (widgets + #","widget_kinds":[]}"#, "widget_kinds is required for widgets"),
            (widgets + "}", "widget_kinds is required for widgets"),
            (widgets + #","widget_kinds":null}"#, "widget_kinds is required for widgets"),
            (widgets + #","widget_kinds":\#(tooMany)}"#, "1 to 64 widget kinds"),
            (widgets + #","widget_kinds":"shopping"}"#, "widget_kinds"),
            (#"{"kind":"alert","token":"\#(Self.token)","device_id":"d","widget_kinds":["shopping"]}"#, "widget_kinds is for widgets tokens"),
        ]
        for (body, says) in cases {
            let response = try register(server, bearer, body)
            #expect(response.status == 400, "\(body): \(response.text)")
            #expect(response.errorField == "widget_kinds", "\(body): \(response.text)")
            #expect(response.text.contains(says), "\(body): \(response.text)")
        }
        #expect(try server.app.store.tokens.history(householdID: user.householdID).isEmpty)
    }

    @Test func theDocumentListsTheWidgetKindsARegistrationTakes() throws {
        let server = try TestServer()
        defer { server.stop() }
        let document = try server.request("GET", "/openapi.json")
        let schemas = (document.json?["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let variants = (schemas?["RegisterToken"] as? [String: Any])?["oneOf"] as? [[String: Any]] ?? []
        let widgets = variants.first { (($0["properties"] as? [String: Any])?["kind"] as? [String: Any])?["enum"] as? [String] == ["widgets"] }
        let kinds = (widgets?["properties"] as? [String: Any])?["widget_kinds"] as? [String: Any]
        #expect(widgets?["required"] as? [String] == ["kind", "token", "widget_kinds"])
        #expect(kinds?["minItems"] as? Int == 1 && kinds?["maxItems"] as? Int == 64)
        let names = ((kinds?["items"] as? [String: Any])?["enum"] as? [String]) ?? []
        #expect(names.contains("shopping") && names.contains(ShoppingActivityAttributes.typeName) && names == names.sorted())
    }
}
