import LivelineModel
import Testing

/// A notification's deep link is an app path (RFC 3986 `path-absolute`, optional query and
/// fragment): the form the server's own invitation sends, and the only one the app reads.
struct DeepLinkTests {
    @Test func appPathsAreLinks() {
        for text in [
            "/", "/cook-suggest/cs_abc123", "/shopping/2026-01-05", "/cook-suggest/cs_abc?step=answers#top", "/a/", "/a//b", "/?x",
            "/#f", "/caf%C3%A9", "/a:b@c/!$&'()*+,;=~._-", "/x?a=/b?c", "/x#a/b?c",
        ] {
            #expect(DeepLink.isValid(text), "\(text)")
        }
    }

    @Test func schemesHostsAndStrayCharactersAreNot() {
        for text in [
            "", "cook-suggest/cs_abc", "liveline://cook-suggest/cs_abc", "https://example.com/x", "//example.com/x", "//", "/a b", "/a%2",
            "/a%G0", "/é", "/a\u{0}", "/a\n", "/x#a#b", "/a[1]", "/a\\b", "?x", "#x", "/a|b",
        ] {
            #expect(!DeepLink.isValid(text), "\(text)")
        }
    }

    @Test func aLinkIsReadIntoPathSegmentsQueryAndFragment() throws {
        let link = try #require(DeepLink("/cook-suggest/cs_abc?step=answers#top"))
        #expect(link.path == "/cook-suggest/cs_abc" && link.segments == ["cook-suggest", "cs_abc"])
        #expect(link.query == "step=answers" && link.fragment == "top")
        let root = try #require(DeepLink("/"))
        #expect(root.segments.isEmpty && root.query == nil && root.fragment == nil)
        let question = try #require(DeepLink("/x#a?b"))
        #expect(question.query == nil && question.fragment == "a?b")
        #expect(DeepLink("/a/")?.segments == ["a", ""])
    }
}
