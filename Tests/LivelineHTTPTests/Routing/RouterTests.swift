import LivelineHTTP
import LivelineModel
import Testing

struct RouterTests {
    static func router() -> Router {
        var router = Router()
        router.add(Route(.get, "/a/{x}")) { request in .jsonBytes(Array((try request.parameter("x")).utf8)) }
        router.add(Route(.post, "/a/{x}")) { _ in .jsonBytes([]) }
        router.add(Route(.get, "/b")) { _ in .jsonBytes([]) }
        return router
    }

    @Test func resolvesLiteralAndParameterRoutes() throws {
        let router = Self.router()
        guard case .matched(let handler, let parameters) = router.resolve(method: "GET", path: "/a/42") else {
            Issue.record("GET /a/42 did not match")
            return
        }
        #expect(parameters == ["x": "42"])
        let response = try handler(HTTPRequest(method: "GET", path: "/a/42", parameters: parameters))
        guard case .bytes(let bytes) = response.body else { return Issue.record("not bytes") }
        #expect(bytes == Array("42".utf8))
        guard case .matched = router.resolve(method: "GET", path: "/b") else { return Issue.record("GET /b") }
    }

    @Test func reportsAllowedMethodsAndUnknownPaths() {
        let router = Self.router()
        guard case .methodNotAllowed(let allowed) = router.resolve(method: "DELETE", path: "/a/1") else {
            return Issue.record("DELETE /a/1 should be 405")
        }
        #expect(allowed.sorted() == ["GET", "POST"])
        guard case .notFound = router.resolve(method: "GET", path: "/a/1/extra") else { return Issue.record("extra segment") }
        guard case .notFound = router.resolve(method: "GET", path: "/c") else { return Issue.record("/c") }
    }
}
