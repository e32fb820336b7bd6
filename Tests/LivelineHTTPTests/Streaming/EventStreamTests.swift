import Foundation
import LivelineHTTP
import LivelineModel
import LivelineTestSupport
import Testing

/// What an event stream puts on the wire, read through a real server.
@Suite struct EventStreamTests {
    /// The whole body of a stream that sends `data` once and closes.
    static func wire(_ data: String) throws -> String {
        var router = Router()
        router.add(Route(.get, "/events")) { _ in
            let stream = EventStream()
            stream.send(event: "page", data: data)
            stream.close()
            return .events(stream)
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2), router: router, accessLog: .discarding())
        try server.start()
        defer { server.shutdown() }
        let connection = try TestHTTPConnection(port: server.port)
        try connection.send(Array("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(try connection.readHead().status == 200)
        var text = ""
        while let chunk = try connection.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        return text
    }

    @Test func everyLineEndOfTheDataStartsADataLine() throws {
        // A receiver ends a line at \n, \r\n and a lone \r alike (the HTML Living Standard's
        // event stream grammar): each must become a data line, or the rest would be read as a field.
        #expect(try Self.wire("a\nb\r\nc\rd") == "event: page\ndata: a\ndata: b\ndata: c\ndata: d\n\n")
        #expect(try Self.wire("one line") == "event: page\ndata: one line\n\n")
        #expect(try Self.wire("trailing\r") == "event: page\ndata: trailing\ndata: \n\n")
    }
}
