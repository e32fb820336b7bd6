import LivelineModel
import Testing

/// Routes are declared once: the client prints them, the server parses them.
struct RouteTests {
    @Test func printsMethodPathAndPercentEncodedParameters() {
        let route = Route(.put, "/v1/contexts/{key}")
        #expect(route.description == "PUT /v1/contexts/{key}")
        #expect(route.path(["key": "shopping:7:2026-01-05"]) == "/v1/contexts/shopping:7:2026-01-05")
        #expect(route.path(["key": "a b/c?d%é"]) == "/v1/contexts/a%20b%2Fc%3Fd%25%C3%A9")
        #expect(Routes.user.path(["userId": "42"]) == "/api/users/42")
        #expect(Route(.get, "/").path() == "/")
    }

    @Test func matchesLiteralsAndNamesParameters() {
        #expect(Routes.user.match(path: "/api/users/42") == ["userId": "42"])
        #expect(Routes.registerToken.match(path: "/api/apns/register") == [:])
        #expect(Routes.user.match(path: "/api/users/42/") == ["userId": "42"])
        #expect(Routes.user.parameterNames == ["userId"])
    }

    @Test func doesNotMatchWrongSegmentsOrCounts() {
        #expect(Routes.user.match(path: "/api/users") == nil)
        #expect(Routes.user.match(path: "/api/users/42/tokens") == nil)
        #expect(Routes.user.match(path: "/api/members/42") == nil)
        #expect(Routes.me.match(path: "/api/you") == nil)
    }

    @Test func everyCoreRouteIsDeclaredOnce() {
        let keys = Routes.all.map { "\($0.method.rawValue) \($0.template)" }
        #expect(Set(keys).count == keys.count)
        #expect(Routes.all.contains(Routes.registerToken))
    }
}
