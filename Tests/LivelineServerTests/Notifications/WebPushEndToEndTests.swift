import Foundation
import LivelineCrypto
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import Testing

/// Notify's third channel end to end (docs/operations.md, "Web Push"): a real server, its in-process sandbox's
/// push service with simulated browser subscriptions (each its own P-256 key and auth secret), the
/// libcurl client over HTTP/1.1 on this machine. What a browser would show is what the push
/// service decrypted with the subscription's private key.
@Suite struct WebPushEndToEndTests {
    static let subject = "mailto:ops@liveline.test"
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A server that sends web pushes to loopback push services.
    static func setup(maximumAttempts: Int = 30) throws -> ContextAPITests.Setup {
        try ContextAPITests.Setup { configuration in
            configuration.webPushSubject = Self.subject
            configuration.webPushAllowInsecure = true
            configuration.pushRetry.maximumAttempts = maximumAttempts
        }
    }

    /// A simulated browser of the user, registered as a `web-push` token.
    static func browser(_ setup: ContextAPITests.Setup, _ name: String = "laptop") throws -> SimulatedSubscription {
        let browser = try setup.sandbox.webPush.subscribe()
        let registered = try setup.server.request(
            "POST", "/api/apns/register", token: setup.bearer,
            json: #"{"kind":"web-push","device_id":"\#(name)","token":\#(browser.subscription.canonicalJSON)}"#)
        #expect(registered.status == 200, "\(registered.text)")
        return browser
    }

    static func notify(_ setup: ContextAPITests.Setup, _ dedupeKey: String, extra: String = "") throws -> TestHTTPConnection.Response {
        try setup.admin(
            "POST", "/v1/notify",
            json:
                #"{"userId":\#(setup.userID),"title":"Kochen heute?","body":"Anna schlägt Pasta vor","link":"/cook-suggest/cs_7","icon":"🍝","dedupeKey":"\#(dedupeKey)"\#(extra)}"#
        )
    }

    @Test func aNotifyReachesTheBrowserEncryptedAndSignedOncePerDedupeKey() async throws {
        let setup = try Self.setup()
        defer { setup.stop() }
        let browser = try Self.browser(setup)
        let served = try setup.server.request("GET", "/api/webpush/vapid-public-key", token: setup.bearer)
        let publicKey = try #require(served.json?["publicKey"] as? String, "\(served.text)")
        #expect(Base64URL.decode(publicKey)?.count == 65)
        #expect(try setup.server.request("GET", "/api/webpush/vapid-public-key").status == 401, "a bearer token is needed")

        let first = try Self.notify(setup, "cook:7", extra: #","ttl":600,"urgency":"high","topic":"cook-7""#)
        #expect(first.status == 201 && (first.json?["queued"] as? [String: Int])?["web-push"] == 1, "\(first.text)")
        let id = try #require(first.json?["id"] as? Int)
        #expect(await eventually { setup.sandbox.webPush.pushes(subscriptionID: browser.id).count == 1 })
        let push = try #require(setup.sandbox.webPush.pushes(subscriptionID: browser.id).first)
        #expect(push.status == 201, "\(push.refusal ?? "") \(push.detail ?? "")")
        #expect(push.ttl == 600 && push.urgency == "high" && push.topic == "cook-7" && push.contentEncoding == "aes128gcm")
        let plaintext = try #require(push.plaintext)
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any])
        #expect(shown["title"] as? String == "Kochen heute?" && shown["body"] as? String == "Anna schlägt Pasta vor")
        #expect(shown["link"] as? String == "/cook-suggest/cs_7" && shown["icon"] as? String == "🍝")
        #expect(shown["dedupeKey"] as? String == "cook:7" && shown["notificationId"] as? Int == id)
        let claims = try #require(push.vapid)
        #expect(claims.audience == setup.sandbox.webPush.origin && claims.subject == Self.subject)
        #expect(Base64URL.encode(claims.publicKey) == publicKey, "signed with the key the server serves")
        #expect(claims.expiresAt.timeIntervalSinceNow > 3600 && claims.expiresAt.timeIntervalSinceNow <= 24 * 3600)

        // The same dedupe key again: nothing new (drained, then looked).
        let second = try Self.notify(setup, "cook:7")
        #expect(second.status == 200 && second.json?["created"] as? Bool == false)
        #expect(try await eventually { try setup.outboxIsEmpty() })
        #expect(setup.sandbox.webPush.pushes(subscriptionID: browser.id).count == 1)
        let attempts = try setup.server.app.store.database.read { transaction in
            try transaction.query("SELECT status FROM deliveries WHERE target_kind = 'token'").map { try $0.int("status") }
        }
        #expect(attempts == [201], "one delivery record, the push service's status")
        let metrics = String(decoding: try setup.admin("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"liveline_web_pushes_total{status="201"} 1"#), "\(metrics)")
    }

    @Test func aPushServiceThatNeverAnswersHoldsUpNoAPNsPush() async throws {
        // Retries a minute apart: the rows given back at the end stay due, nothing is tried again.
        let setup = try ContextAPITests.Setup { configuration in
            configuration.webPushSubject = Self.subject
            configuration.webPushAllowInsecure = true
            configuration.pushRetry = RetryPolicy(initialDelay: .seconds(60), maximumDelay: .seconds(60), maximumAttempts: 30)
        }
        defer { setup.stop() }
        let silent = try DeadPort.silent()
        defer { silent.close() }
        // A browser whose push service takes the request and never answers (the client gives up
        // on it only after 0.8 × the lease − 1 s).
        let keys = try setup.sandbox.webPush.subscribe().subscription.keys
        let quiet = WebPushSubscription(endpoint: "http://127.0.0.1:\(silent.port)/push/quiet", keys: keys)
        let registered = try setup.server.request(
            "POST", "/api/apns/register", token: setup.bearer, json: #"{"kind":"web-push","device_id":"laptop","token":\#(quiet.canonicalJSON)}"#)
        #expect(registered.status == 200, "\(registered.text)")
        let token = String(repeating: "b2", count: 32)
        setup.sandbox.registerDevice(token: token)
        let phone = try setup.server.request(
            "POST", "/api/apns/register", token: setup.bearer, json: #"{"kind":"alert","token":"\#(token)","device_id":"phone"}"#)
        #expect(phone.status == 200)
        let engine = setup.server.app.engine
        let outbox = setup.server.app.store.outbox
        // What the test saw, for a failure's message.
        let seen = {
            "pushes \(engine.metrics.snapshot.pushes), web pushes \(engine.metrics.snapshot.webPushes), \((try? outbox.depth(now: Date())).map { "\($0)" } ?? "no depth")"
        }

        // One notify: its alert push and its web push are rows of one batch; then the next one.
        // What shows that no alert waited for a web push is the order of the recorded answers: each
        // alert recorded before its own web push's answer (whose only answer is the client's
        // timeout, 20 s after it was handed over). The test's own clock proves nothing here: a
        // loaded machine can hold its polling up for longer than that.
        let first = try Self.notify(setup, "cook:1")
        #expect((first.json?["queued"] as? [String: Int]) == ["alert": 1, "web-push": 1], "\(first.text)")
        #expect(
            await eventually { engine.metrics.snapshot.pushes.values.reduce(0, +) == 1 },
            "the alert push is recorded: \(seen())")
        let second = try Self.notify(setup, "cook:2")
        #expect(second.status == 201)
        #expect(
            await eventually { engine.metrics.snapshot.pushes.values.reduce(0, +) == 2 },
            "nor does the next batch wait: \(seen())")
        #expect(setup.sandbox.accepted(token: token).count == 2, "\(setup.sandbox.accepted(token: token))")
        let answers = try setup.server.app.store.database.read { transaction in
            try transaction.query(
                """
                SELECT t.kind, d.status, d.note, d.attempted_at FROM deliveries d
                JOIN push_tokens t ON CAST(t.id AS TEXT) = d.target WHERE d.target_kind = 'token'
                """
            ).map { row in
                (
                    kind: try row.string("kind"), status: try row.int("status"), note: try row.optionalString("note") ?? "",
                    recordedAt: try row.date("attempted_at")
                )
            }
        }
        // Each notify's alert was recorded before its own web push got any answer.
        for dedupeKey in ["cook:1", "cook:2"] {
            let mine = answers.filter { $0.note.contains("(\(dedupeKey))") }
            let alerts = mine.filter { $0.kind == "alert" }
            #expect(alerts.count == 1 && alerts.first?.status == 200, "\(answers)")
            let alertRecorded = try #require(alerts.first?.recordedAt)
            #expect(mine.filter { $0.kind == "web-push" }.allSatisfy { $0.status == 0 && $0.recordedAt > alertRecorded }, "\(answers)")
        }

        // The push service goes away: the connections are reset, both rows wait for a retry.
        silent.close()
        #expect(
            await eventually { (engine.metrics.snapshot.webPushes[0] ?? 0) >= 2 },
            "both web pushes end without an answer: \(seen())")
        #expect(try await eventually { try outbox.depth(now: Date()).leased == 0 }, "\(seen())")
        let depth = try outbox.depth(now: Date())
        #expect(depth.due == 2 && depth.dead == 0, "retried later, not lost: \(depth)")
    }

    @Test func aGoneSubscriptionIsRemovedAndNeverSentToAgain() async throws {
        let setup = try Self.setup()
        defer { setup.stop() }
        let browser = try Self.browser(setup)
        setup.sandbox.webPush.unsubscribe(browser.id)
        #expect((try Self.notify(setup, "a").json?["queued"] as? [String: Int])?["web-push"] == 1)
        #expect(await eventually { setup.sandbox.webPush.pushes(subscriptionID: browser.id).first?.status == 410 })
        #expect(try await eventually { try setup.outboxIsEmpty() })
        let active = try setup.server.app.store.tokens.activeTokens(userID: setup.userID).filter { $0.kind == .webPush }
        #expect(active.isEmpty, "the subscription is no longer active")
        #expect((try Self.notify(setup, "b").json?["queued"] as? [String: Int])?["web-push"] == 0)
        #expect(setup.sandbox.webPush.pushes(subscriptionID: browser.id).count == 1)
    }

    @Test func retryAfterIsWaitedForAndServerErrorsAreRetriedUntilAccepted() async throws {
        let setup = try Self.setup()
        defer { setup.stop() }
        let browser = try Self.browser(setup)
        setup.sandbox.webPush.failNext(subscriptionID: browser.id, count: 1, status: 429, retryAfter: 2)
        _ = try Self.notify(setup, "slow")
        #expect(await eventually(timeout: 15) { setup.sandbox.webPush.pushes(subscriptionID: browser.id).count == 2 })
        let pushes = setup.sandbox.webPush.pushes(subscriptionID: browser.id)
        #expect(pushes.map(\.status) == [429, 201])
        let waited = pushes[1].receivedAt.timeIntervalSince(pushes[0].receivedAt)
        #expect(waited >= 1.95, "the next try no sooner than Retry-After: 2 (waited \(waited) s)")

        let other = try Self.browser(setup, "desktop")
        setup.sandbox.webPush.failNext(subscriptionID: other.id, count: 3, status: 500)
        _ = try Self.notify(setup, "flaky")
        #expect(await eventually(timeout: 15) { setup.sandbox.webPush.pushes(subscriptionID: other.id).last?.status == 201 })
        #expect(setup.sandbox.webPush.pushes(subscriptionID: other.id).map(\.status) == [500, 500, 500, 201])
    }

    @Test func aSubscriptionThatNeverAcceptsOrRefusesForGoodIsADeadLetterNamingTheAnswer() async throws {
        let setup = try Self.setup(maximumAttempts: 3)
        defer { setup.stop() }
        let never = try Self.browser(setup, "never")
        let refusing = try Self.browser(setup, "refusing")
        setup.sandbox.webPush.failNext(subscriptionID: never.id, count: 100, status: 503)
        setup.sandbox.webPush.failNext(subscriptionID: refusing.id, count: 100, status: 403)
        _ = try Self.notify(setup, "doomed")
        #expect(try await eventually(timeout: 15) { try setup.server.app.store.outbox.deadLetters().count == 2 })
        let reasons = try setup.server.app.store.outbox.deadLetters().compactMap(\.lastError).sorted()
        #expect(reasons.count == 2)
        #expect(reasons.contains { $0.contains("gave up after 3 attempts") && $0.contains("503") }, "\(reasons)")
        #expect(reasons.contains { $0.contains("the push service answered 403") && $0.contains("not retried") }, "\(reasons)")
        #expect(setup.sandbox.webPush.pushes(subscriptionID: never.id).count == 3)
        #expect(setup.sandbox.webPush.pushes(subscriptionID: refusing.id).count == 1)
        // The notification's timeline: each attempt with the push service's status, and both dead letters.
        let timeline = try setup.admin("GET", "/v1/notify/timeline?userId=\(setup.userID)&dedupeKey=doomed")
        #expect(timeline.status == 200, "\(timeline.text)")
        let entries = try #require(timeline.json?["entries"] as? [[String: Any]])
        let statuses = entries.filter { $0["kind"] as? String == "delivery" }.compactMap { $0["status"] as? Int }.sorted()
        #expect(statuses == [403, 503, 503, 503], "\(statuses)")
        let dead = entries.filter { $0["kind"] as? String == "deadLetter" }.compactMap { $0["reason"] as? String }
        #expect(dead.count == 2 && dead.contains { $0.contains("503") } && dead.contains { $0.contains("403") }, "\(dead)")
        #expect(try setup.admin("GET", "/v1/notify/timeline?userId=\(setup.userID)&dedupeKey=nope").status == 404)
        #expect(try setup.admin("GET", "/v1/notify/timeline?dedupeKey=doomed").status == 400)
    }

    /// A payload longer than one record is never sent: a dead letter saying so, while the inbox
    /// record is made as usual.
    @Test func aPayloadTooLongForOneRecordIsADeadLetterAndTheInboxRecordStays() async throws {
        let setup = try Self.setup()
        defer { setup.stop() }
        let browser = try Self.browser(setup)
        let long = String(repeating: "𝄞", count: 1000)  // 1,000 characters, 4,000 bytes
        let response = try setup.admin(
            "POST", "/v1/notify", json: #"{"userId":\#(setup.userID),"title":"Lang","body":"\#(long)","dedupeKey":"long"}"#)
        #expect(response.status == 201, "\(response.text)")
        #expect(try await eventually { try setup.server.app.store.outbox.deadLetters().count == 1 })
        let reason = try setup.server.app.store.outbox.deadLetters().first?.lastError ?? ""
        #expect(reason.contains("3993"), "\(reason)")
        #expect(setup.sandbox.webPush.pushes(subscriptionID: browser.id).isEmpty, "nothing was sent")
        #expect(try setup.server.app.store.notifications.notification(userID: setup.userID, dedupeKey: "long") != nil)
    }

    /// 1,000 web pushes through notify, read by an independent implementation: http_ece decrypts
    /// every body with the browser's key, PyJWT verifies every VAPID token with the served key.
    @Test func anIndependentReaderDecryptsAThousandPushesAndVerifiesEveryToken() async throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "run scripts/test-venv.sh (creates .venv with http_ece and PyJWT)")
        let setup = try Self.setup()
        defer { setup.stop() }
        let browsers = try (0..<10).map { try Self.browser(setup, "browser-\($0)") }
        for index in 0..<100 {
            #expect((try Self.notify(setup, "bulk:\(index)").json?["queued"] as? [String: Int])?["web-push"] == 10)
        }
        #expect(await eventually(timeout: 60) { setup.sandbox.webPush.allPushes.count == 1000 })
        let pushes = setup.sandbox.webPush.allPushes
        #expect(pushes.allSatisfy { $0.status == 201 })
        let publicKey = try #require(
            try setup.server.request("GET", "/api/webpush/vapid-public-key", token: setup.bearer).json?["publicKey"] as? String)
        let byID = Dictionary(uniqueKeysWithValues: browsers.map { ($0.id, $0) })
        let job: [String: Any] = [
            "publicKey": publicKey, "audience": setup.sandbox.webPush.origin, "subject": Self.subject,
            "pushes": try pushes.map { push -> [String: String] in
                let browser = try #require(byID[push.subscriptionID])
                return [
                    "body": Base64URL.encode(push.body), "privateKey": Base64URL.encode(browser.privateKey.rawPrivateKey),
                    "auth": Base64URL.encode(browser.authSecret), "authorization": push.authorization ?? "",
                ]
            },
        ]
        let file = setup.server.folder.appendingPathComponent("pushes.json")
        try JSONSerialization.data(withJSONObject: job).write(to: file)
        let peer = try ChildProcess.run(
            python.path, [Self.root.appendingPathComponent("Tests/LivelineServerTests/Peers/webpush_check.py").path, file.path])
        let errors = String(decoding: peer.errors, as: UTF8.self)
        #expect(peer.termination == .exited(0), "\(errors)")
        let result = try #require(try JSONSerialization.jsonObject(with: peer.output) as? [String: Any], "\(errors)")
        #expect(result["decrypted"] as? Int == 1000, "\((result["errors"] as? [String])?.prefix(3) ?? [])")
        #expect(result["verified"] as? Int == 1000, "\((result["errors"] as? [String])?.prefix(3) ?? [])")
        let keys = Set(
            (result["plaintexts"] as? [String] ?? []).compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["dedupeKey"] as? String
            })
        #expect(keys == Set((0..<100).map { "bulk:\($0)" }))
    }
}
