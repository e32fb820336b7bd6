import LivelineClient
import LivelineCookSuggestModel
import Testing

/// The invitation's deep link as the app routes it (`/cook-suggest/{id}`), no server needed.
@Suite struct DeepLinkRoutingTests {
    @Test func theInvitationsLinkOpensItsSessionWithOrWithoutATrailingSlashQueryOrFragment() {
        for link in ["/cook-suggest/cs_abc", "/cook-suggest/cs_abc/", "/cook-suggest/cs_abc?from=push", "/cook-suggest/cs_abc#top"] {
            #expect(LivelineClient.cookSuggestSessionID(fromLink: link) == "cs_abc", "\(link)")
        }
    }

    @Test func otherLinksOpenNoSession() {
        for link in [
            "/cook-suggest/", "/cook-suggest/abc", "/shopping/2026-01-05", "liveline://cook-suggest/cs_abc", "//cook-suggest/cs_abc",
            "cook-suggest/cs_abc",
        ] {
            #expect(LivelineClient.cookSuggestSessionID(fromLink: link) == nil, "\(link)")
        }
    }
}
