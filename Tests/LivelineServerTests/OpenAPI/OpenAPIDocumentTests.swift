import Foundation
import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTesting
import LivelineTransitModel
import Testing

@Suite struct OpenAPIDocumentTests {
    @Test func everyServedRouteIsDocumentedAndNothingElse() throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try server.request("GET", "/openapi.json")
        #expect(response.status == 200)
        #expect(response.json?["openapi"] as? String == "3.1.0")
        let paths = try #require(response.json?["paths"] as? [String: [String: Any]])
        var documented: Set<String> = []
        for (path, operations) in paths {
            for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") }
        }
        // The dashboard's pages are HTML for people, not the API: all under /dashboard, not in the document.
        let served = Set(server.app.routes.filter { !$0.template.hasPrefix("/dashboard") }.map(\.description))
        #expect(server.app.routes.contains { $0.template == "/dashboard/activities/{key}" })
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented))")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served))")
        // The core's routes and the built-in features' (each in its model), every one declared once.
        let declared = (Routes.all + Routes.shopping + Routes.cookSuggest + Routes.transit).map(\.description)
        #expect(Set(declared).count == declared.count)
        #expect(served == Set(declared))
    }

    /// A server's contracts are the variants of `PutContext`; with none, no body is valid (an
    /// empty `oneOf` is not allowed by JSON Schema).
    @Test func putContextHasOneVariantPerContractAndNoneWithoutContracts() throws {
        for builtIn in [true, false] {
            let server = try builtIn ? TestServer() : TestServer(features: [])
            let variants = builtIn ? 3 : 0
            defer { server.stop() }
            let document = try server.request("GET", "/openapi.json").json
            let schemas = (document?["components"] as? [String: Any])?["schemas"] as? [String: Any]
            let putContext = try #require(schemas?["PutContext"] as? [String: Any])
            if variants == 0 {
                #expect(putContext["oneOf"] == nil && (putContext["not"] as? [String: Any])?.isEmpty == true)
            } else {
                #expect((putContext["oneOf"] as? [Any])?.count == variants && putContext["not"] == nil)
            }
        }
    }

    @Test func schemaReferencesResolve() throws {
        let server = try TestServer()
        defer { server.stop() }
        let text = try server.request("GET", "/openapi.json").text
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let schemas = try #require((object["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let references = text.components(separatedBy: "#/components/schemas/").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(!references.isEmpty)
        for name in references { #expect(schemas[String(name)] != nil, "missing schema \(name)") }
    }
}
