import Foundation
import LivelineTestSupport
import Testing

/// Live updates: an open page's stream sends the page's main part again when what it shows
/// changed, and ends with the session.
@Suite struct DashboardLiveTests {
    struct StreamRefused: Error { var status: Int }

    /// The events of an open `/dashboard/events` stream, read as they come.
    final class EventReader {
        let connection: TestHTTPConnection
        var pending = ""

        init(port: Int, path: String, cookie: String) throws {
            connection = try TestHTTPConnection(port: port, timeout: 15)
            try connection.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n\r\n".utf8))
            let head = try connection.readHead()
            guard head.status == 200, head.headers["content-type"] == "text/event-stream" else {
                throw StreamRefused(status: head.status)
            }
        }

        /// The next event's name and data (comments skipped); nil when the stream ended.
        func next() throws -> (event: String?, data: String)? {
            while true {
                if let end = pending.range(of: "\n\n") {
                    let block = String(pending[..<end.lowerBound])
                    pending = String(pending[end.upperBound...])
                    var event: String?
                    var data: [String] = []
                    for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                        if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                        if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
                    }
                    if event == nil && data.isEmpty { continue }  // a keep-alive comment
                    return (event, data.joined(separator: "\n"))
                }
                guard let chunk = try connection.readChunk() else { return nil }
                pending += String(decoding: chunk, as: UTF8.self)
            }
        }

        /// Reads events until one's data satisfies `condition`; nil when the stream ended first.
        func until(_ condition: (String) -> Bool) throws -> String? {
            while let event = try next() {
                if event.event == "page", condition(event.data) { return event.data }
            }
            return nil
        }
    }

    @Test func aChangeOfTheContextReachesTheOpenActivityPage() throws {
        let server = try DashboardServer(.live)  // event streams cross the wire only
        defer { server.stop() }
        try server.putTrip("trip:5", stop: "Hauptbahnhof")
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let page = try visitor.get("/dashboard/activities/trip:5")
        #expect(page.text.contains(#"data-events="/dashboard/events?page=activity&amp;key=trip%3A5""#))
        let reader = try EventReader(port: try server.port, path: "/dashboard/events?page=activity&key=trip%3A5", cookie: visitor.cookieHeader)
        // The first event is the page as it is.
        let first = try #require(try reader.until { $0.contains("<h1>trip:5</h1>") })
        #expect(first.contains("Hauptbahnhof"))
        #expect(!first.contains("Paradeplatz"))
        // A change through /v1: the stream sends the page again, with the new card and timeline.
        #expect(try server.putTrip("trip:5", stop: "Paradeplatz", delay: 4).status == 200)
        let changed = try #require(try reader.until { $0.contains("Paradeplatz") })
        #expect(changed.contains("+4 min"))
        #expect(changed.contains("<td>rev 2</td>"))
    }

    @Test func theOverviewFollowsNewActivities() throws {
        let server = try DashboardServer(.live)  // event streams cross the wire only
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let reader = try EventReader(port: try server.port, path: "/dashboard/events?page=overview", cookie: visitor.cookieHeader)
        let first = try #require(try reader.until { $0.contains("<h1>Overview</h1>") })
        #expect(!first.contains("trip:77"))
        try server.putTrip("trip:77", stop: "Hbf")
        #expect(try reader.until { $0.contains(#"<a href="/dashboard/activities/trip:77">trip:77</a>"#) } != nil)
    }

    @Test func aNewContractVersionReachesTheOpenContractsPage() throws {
        let server = try DashboardServer(.live)  // event streams cross the wire only
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let path = "/v1/contracts/\(DeliveryContract.typeName)"
        #expect(try server.admin("PUT", path, json: DeliveryContract.text(DeliveryContract.v1)).status == 201)
        let reader = try EventReader(port: try server.port, path: "/dashboard/events?page=contracts", cookie: visitor.cookieHeader)
        let first = try #require(try reader.until { $0.contains("<h1>Contracts</h1>") })
        #expect(first.contains(DeliveryContract.v1.fingerprint))
        #expect(!first.contains(DeliveryContract.v2.fingerprint))
        #expect(try server.admin("PUT", path, json: DeliveryContract.text(DeliveryContract.v2)).status == 201)
        #expect(try reader.until { $0.contains("<dt>current version</dt><dd>2</dd>") && $0.contains(DeliveryContract.v2.fingerprint) } != nil)
    }

    @Test func aStreamEndsWhenItsSessionSignsOut() throws {
        let server = try DashboardServer(.live)  // event streams cross the wire only
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let reader = try EventReader(port: try server.port, path: "/dashboard/events?page=overview", cookie: visitor.cookieHeader)
        #expect(try reader.until { $0.contains("<h1>Overview</h1>") } != nil)
        let token = try #require(DashboardVisitor.csrf(in: try visitor.get("/dashboard").text))
        #expect(try visitor.request("POST", "/dashboard/sign-out", form: ["csrf": token]).status == 303)
        // Drained: no more pages, then the end of the stream.
        #expect(try reader.until { _ in true } == nil)
    }
}
