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

    @Test func resolvesParameterRoutesToTheirHandler() throws {
        guard case .matched(let handler, let parameters, _) = Self.router().resolve(method: "GET", path: "/a/42") else {
            Issue.record("GET /a/42 did not match")
            return
        }
        #expect(parameters == ["x": "42"])
        let response = try handler(HTTPRequest(method: "GET", path: "/a/42", parameters: parameters))
        guard case .bytes(let bytes) = response.body else {
            Issue.record("not a byte body")
            return
        }
        #expect(bytes == Array("42".utf8))
    }

    @Test func aLiteralRouteAnswersItsPathWrittenWithATrailingSlash() {
        var router = Self.router()
        router.add(Route(.get, "/c/d")) { _ in .jsonBytes([]) }
        for path in ["/b/", "/c/d/"] {
            var matched = false
            if case .matched = router.resolve(method: "GET", path: path) { matched = true }
            #expect(matched, "GET \(path)")
        }
    }

    @Test func resolvesLiteralRoutes() {
        var matched = false
        if case .matched = Self.router().resolve(method: "GET", path: "/b") { matched = true }
        #expect(matched)
    }

    @Test func reportsAllowedMethodsAndUnknownPaths() {
        let router = Self.router()
        var allowed: [String] = []
        if case .methodNotAllowed(let methods) = router.resolve(method: "DELETE", path: "/a/1") { allowed = methods }
        #expect(allowed.sorted() == ["GET", "POST"])
        var notFound = 0
        if case .notFound = router.resolve(method: "GET", path: "/a/1/extra") { notFound += 1 }
        if case .notFound = router.resolve(method: "GET", path: "/c") { notFound += 1 }
        #expect(notFound == 2)
    }
}
