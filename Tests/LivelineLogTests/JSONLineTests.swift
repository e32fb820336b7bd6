import Foundation
import LivelineLog
import Testing

struct JSONLineTests {
    @Test func escapesEverythingJSONRequires() throws {
        var line = JSONLine()
        line.add("path", "/a\"b\\c\nd\u{01}é")
        line.add("status", 200)
        line.add("ok", true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.string.utf8)) as? [String: Any])
        #expect(object["path"] as? String == "/a\"b\\c\nd\u{01}é")
        #expect(object["status"] as? Int == 200)
        #expect(object["ok"] as? Bool == true)
    }
}
