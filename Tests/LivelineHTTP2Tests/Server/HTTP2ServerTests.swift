import Foundation
import LivelineHTTP2
import LivelineTestSupport
import Synchronization
import Testing

/// The HTTP/2 server and client against each other over real TLS sockets.
@Suite struct HTTP2ServerTests {
    static func start(maxStreams: UInt32 = 1000, tls: Bool = true) throws -> (HTTP2Server, RecordingHandler) {
        let handler = RecordingHandler()
        let server = HTTP2Server(
            configuration: HTTP2ServerConfiguration(tls: tls ? try TestCertificate.serverContext() : nil, maxConcurrentStreams: maxStreams),
            handler: handler
        )
        try server.start()
        return (server, handler)
    }

    static let loop = try! EventLoop(name: "h2-test-client")

    static func client(_ server: HTTP2Server, tls: Bool = true, offerALPN: Bool = true) throws -> HTTP2ClientConnection {
        try HTTP2ClientConnection(
            host: "127.0.0.1", port: server.port, tls: tls ? try TestCertificate.clientContext(offerALPN: offerALPN) : nil, loop: loop
        )
    }

    @Test func aSuccessIsHeadersOnlyAndAnErrorCarriesItsBody() async throws {
        let (server, handler) = try Self.start()
        defer { server.shutdown() }
        let client = try Self.client(server)
        let ok = try await client.send(HTTP2ClientRequest(path: "/ok", headers: [("apns-topic", "x")], body: Array("{}".utf8)))
        #expect(ok.status == 200)
        #expect(ok.header("apns-id") == "3F2504E0-4F89-11D3-9A0C-0305E82C3301")
        #expect(!ok.hadDataFrames)
        let error = try await client.send(HTTP2ClientRequest(path: "/error"))
        #expect(error.status == 400)
        #expect(String(decoding: error.body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
        let seen = try #require(handler.requests.withLock { $0.first })
        #expect(seen.method == "POST" && seen.header("apns-topic") == "x" && seen.body == Array("{}".utf8))
    }

    @Test func fieldsRepeatedOnAConnectionKeepTheirOwnValues() async throws {
        // The server reuses the Strings of a field whose bytes repeat: values that change, move,
        // or come and go between requests must still arrive as sent.
        let (server, handler) = try Self.start()
        defer { server.shutdown() }
        let client = try Self.client(server)
        let sent: [(path: String, headers: [(String, String)])] = [
            ("/ok", [("apns-topic", "a.b"), ("apns-priority", "10"), ("x-extra", "1")]),
            ("/ok", [("apns-topic", "a.b"), ("apns-priority", "5")]),
            ("/echo", [("apns-priority", "5"), ("apns-topic", "a.b.c"), ("apns-topic", "a.b.c")]),
            ("/ok", [("apns-topic", "a.b"), ("apns-priority", "10"), ("x-extra", "2")]),
        ]
        for request in sent { _ = try await client.send(HTTP2ClientRequest(path: request.path, headers: request.headers)) }
        let seen = handler.requests.withLock { $0 }
        #expect(seen.map(\.path) == sent.map(\.path))
        for (request, received) in zip(sent, seen) {
            #expect(received.headers.map { "\($0.name): \($0.value)" } == request.headers.map { "\($0.0): \($0.1)" })
        }
    }

    @Test func bodiesArriveWhole() async throws {
        let (server, _) = try Self.start()
        defer { server.shutdown() }
        let client = try Self.client(server)
        let body = (0..<5000).map { UInt8($0 % 251) }
        let echo = try await client.send(HTTP2ClientRequest(path: "/echo", body: body))
        #expect(echo.body == body)
    }

    @Test func aClientOfferingNoALPNIsServedHTTP2() async throws {
        let (server, _) = try Self.start()
        defer { server.shutdown() }
        let client = try Self.client(server, offerALPN: false)
        #expect(try await client.send(HTTP2ClientRequest(path: "/ok")).status == 200)
    }

    @Test func priorKnowledgeWithoutTLSWorks() async throws {
        let (server, _) = try Self.start(tls: false)
        defer { server.shutdown() }
        let client = try Self.client(server, tls: false)
        #expect(try await client.send(HTTP2ClientRequest(path: "/ok")).status == 200)
    }

    @Test func manyConcurrentStreamsOnOneConnection() async throws {
        let (server, handler) = try Self.start()
        defer { server.shutdown() }
        let client = try Self.client(server)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 { group.addTask { try await client.send(HTTP2ClientRequest(path: "/ok")).status } }
            var all: [Int] = []
            for try await status in group { all.append(status) }
            return all
        }
        #expect(statuses.count == 1000 && statuses.allSatisfy { $0 == 200 })
        #expect(Set(handler.requests.withLock { $0.map(\.connectionID) }).count == 1)
        #expect(server.connectionCount == 1)
    }

    @Test func theServersStreamLimitIsRespected() async throws {
        let (server, handler) = try Self.start(maxStreams: 1)
        defer { server.shutdown() }
        let client = try Self.client(server)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 { group.addTask { try await client.send(HTTP2ClientRequest(path: "/slow")).status } }
            var all: [Int] = []
            for try await status in group { all.append(status) }
            return all
        }
        #expect(statuses == Array(repeating: 200, count: 10))
        #expect(handler.peakConcurrency == 1)
        #expect(client.status.snapshot.remoteMaxConcurrentStreams == 1)
    }

    @Test func goAwayEndsTheConnectionAndLaterRequestsAreNotProcessed() async throws {
        let (server, _) = try Self.start()
        defer { server.shutdown() }
        let client = try Self.client(server)
        let last = try await client.send(HTTP2ClientRequest(path: "/goaway"))
        #expect(last.status == 503)
        #expect(await eventually { !client.isUsable })
        do {
            _ = try await client.send(HTTP2ClientRequest(path: "/ok"))
            Issue.record("a request after GOAWAY was answered")
        } catch {
            #expect(error.kind == .notProcessed)
        }
    }

    @Test func aDroppedConnectionFailsRequestsInFlight() async throws {
        let (server, handler) = try Self.start()
        defer { server.shutdown() }
        let client = try Self.client(server)
        _ = try await client.send(HTTP2ClientRequest(path: "/ok"))
        do {
            _ = try await client.send(HTTP2ClientRequest(path: "/drop"))
            Issue.record("a dropped request was answered")
        } catch {
            #expect(error.kind == .connectionLost, "\(error.message)")
        }
        #expect(await eventually { handler.closedConnections.withLock { $0.count } == 1 })
    }

    @Test func anUntrustedCertificateIsRefused() async throws {
        let (server, _) = try Self.start()
        defer { server.shutdown() }
        let client = try HTTP2ClientConnection(host: "127.0.0.1", port: server.port, tls: try TLSContext.client(), loop: Self.loop)
        do {
            _ = try await client.send(HTTP2ClientRequest(path: "/ok"))
            Issue.record("a self-signed certificate was trusted without its CA file")
        } catch {
            #expect(error.kind == .connectFailed)
            #expect(error.message.contains("certificate"))
        }
    }

    @Test func shutdownSendsGoAwayToOpenConnections() async throws {
        let (server, _) = try Self.start()
        let client = try Self.client(server)
        _ = try await client.send(HTTP2ClientRequest(path: "/ok"))
        server.shutdown()
        #expect(await eventually { !client.isUsable })
        #expect(server.connectionCount == 0)
    }

    @Test func connectingToAClosedPortFailsQuickly() async throws {
        let dead = try DeadPort()
        defer { withExtendedLifetime(dead) {} }  // held until the test is done
        let client = try HTTP2ClientConnection(host: "127.0.0.1", port: dead.port, tls: nil, loop: Self.loop)
        do {
            _ = try await client.send(HTTP2ClientRequest(path: "/ok"))
            Issue.record("connected to a closed port")
        } catch {
            #expect(error.kind == .connectFailed)
        }
    }
}
