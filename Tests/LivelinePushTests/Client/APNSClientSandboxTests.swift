import Foundation
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import Testing

/// The APNs client against the sandbox over real HTTP/2 + TLS: every classification, lost
/// connections, stream limits and provider-token rotation on an injected clock.
@Suite struct APNSClientSandboxTests {
    @Test func aLiveActivityPushIsDeliveredWithItsHeaders() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let token = harness.device()
        let push = harness.push(to: token)
        let result = await harness.client.send(push)
        #expect(result.status == 200 && result.outcome == .delivered)
        #expect(result.apnsID == push.apnsID)
        #expect(result.uniqueID != nil)  // development environment
        let accepted = try #require(harness.sandbox.accepted(token: token).first)
        #expect(accepted.apnsID == push.apnsID)
        #expect(accepted.pushType == "liveactivity")
        #expect(accepted.topic == harness.sandbox.bundleID + ".push-type.liveactivity")
        #expect(accepted.priority == 10)
        #expect(accepted.payload == push.payload)
    }

    @Test func everyClassificationComesBackFromTheSandbox() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let client = harness.client
        // Unknown token → BadDeviceToken → dead, no timestamp.
        let unknown = await client.send(harness.push(to: String(repeating: "ab", count: 32)))
        #expect(unknown.status == 400 && unknown.reason == .badDeviceToken && unknown.outcome == .tokenDead(since: nil))
        // Unregistered → 410 with its timestamp (milliseconds in the body).
        let gone = harness.device(1)
        let since = Date(timeIntervalSince1970: 1_790_000_000.123)
        harness.sandbox.markUnregistered(token: gone, at: since)
        let unregistered = await client.send(harness.push(to: gone))
        #expect(unregistered.status == 410 && unregistered.reason == .unregistered)
        if case .tokenDead(let when?) = unregistered.outcome {
            #expect(abs(when.timeIntervalSince(since)) < 0.002)
        } else {
            Issue.record("410 was \(unregistered.outcome)")
        }
        // Too large → permanent.
        let live = harness.device(2)
        let big = await client.send(harness.push(to: live, payload: #"{"aps":{"x":"\#(String(repeating: "x", count: 5000))"}}"#))
        #expect(big.status == 413 && big.reason == .payloadTooLarge && big.outcome == .permanent)
        // Wrong topic → permanent.
        var wrongTopic = harness.push(to: live)
        wrongTopic.topic = "com.someone.else.push-type.liveactivity"
        let topic = await client.send(wrongTopic)
        #expect(topic.status == 400 && topic.outcome == .permanent)
        // Server errors → retry.
        harness.sandbox.setFaults(SandboxFaults(seed: 1, internalErrorShare: 1))
        let failing = await client.send(harness.push(to: live))
        #expect(failing.status == 500 && failing.reason == .internalServerError && failing.outcome == .retry(newConnection: false))
        harness.sandbox.setFaults(SandboxFaults(seed: 1, tooManyRequestsShare: 1))
        let throttled = await client.send(harness.push(to: live))
        #expect(throttled.status == 429 && throttled.outcome == .retry(newConnection: false))
        harness.sandbox.setFaults(SandboxFaults(seed: 1))
        #expect(await client.send(harness.push(to: live)).outcome == .delivered)
    }

    @Test func retryingFollowsThePolicyUntilAccepted() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let token = harness.device()
        harness.sandbox.setFaults(SandboxFaults(seed: 7, unavailableShare: 0.5))
        let policy = RetryPolicy(initialDelay: .milliseconds(5), maximumDelay: .milliseconds(20), maximumAttempts: 30)
        for _ in 0..<10 {
            let result = await harness.client.send(harness.push(to: token), retrying: policy)
            #expect(result.outcome == .delivered)
        }
        #expect(harness.sandbox.accepted(token: token).count == 10)
    }

    @Test func goAwayMidBurstLosesNothingAndSendsNothingTwiceWithANewID() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let token = harness.device()
        harness.sandbox.setFaults(SandboxFaults(seed: 3, goAwayAfterStreams: 60))
        let pushes = (0..<300).map { _ in harness.push(to: token) }
        let results = await withTaskGroup(of: APNSResult.self) { group in
            for push in pushes { group.addTask { await harness.client.send(push) } }
            var all: [APNSResult] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 300)
        let failed = results.filter { $0.outcome != .delivered }
        #expect(failed.isEmpty, "\(failed.count) not delivered, e.g. \(failed.prefix(3).map { "\($0.summary) after \($0.attempts)" })")
        #expect(results.contains { $0.attempts > 1 })  // some went again on a new connection
        let accepted = Set(harness.sandbox.accepted(token: token).map(\.apnsID))
        let sent = Set(pushes.map(\.apnsID))
        // Every push arrived, and only with the id it was given.
        #expect(sent.subtracting(accepted).count == 0, "\(sent.subtracting(accepted).count) pushes never arrived")
        #expect(accepted.subtracting(sent).count == 0, "\(accepted.subtracting(sent).count) arrived with an unknown id")
        #expect(Set(harness.sandbox.accepted(token: token).map(\.connectionID)).count > 1)
    }

    @Test func droppedConnectionsAreReplacedAndTheirRequestsSentAgain() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let token = harness.device()
        harness.sandbox.setFaults(SandboxFaults(seed: 4, dropConnectionAfterStreams: 25))
        var delivered = 0
        for _ in 0..<60 where await harness.client.send(harness.push(to: token)).outcome == .delivered { delivered += 1 }
        #expect(delivered == 60)
        #expect(Set(harness.sandbox.accepted(token: token).map(\.apnsID)).count == 60)
    }

    @Test func aStreamLimitOfOneIsRespected() async throws {
        let harness = try SandboxHarness(maxConcurrentStreams: 1)
        defer { harness.stop() }
        let token = harness.device()
        let results = await withTaskGroup(of: APNSResult.self) { group in
            for _ in 0..<40 { group.addTask { await harness.client.send(harness.push(to: token)) } }
            var all: [APNSResult] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.allSatisfy { $0.outcome == .delivered })
        // Nothing was refused by the server and sent again: the limit was kept from the start.
        #expect(results.allSatisfy { $0.attempts == 1 })
        #expect(harness.sandbox.accepted(token: token).count == 40)
    }

    @Test func theFirstRequestOfAConnectionGoesAlone() async throws {
        let harness = try SandboxHarness { $0.clock = { Date() } }  // real time: arrival times matter
        defer { harness.stop() }
        let token = harness.device()
        harness.sandbox.setFaults(SandboxFaults(seed: 5, latency: .milliseconds(150)))
        let results = await withTaskGroup(of: APNSResult.self) { group in
            for _ in 0..<8 { group.addTask { await harness.client.send(harness.push(to: token)) } }
            var all: [APNSResult] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.allSatisfy { $0.outcome == .delivered })
        let received = harness.sandbox.accepted(token: token).map(\.receivedAt).sorted()
        #expect(received.count == 8)
        // The other seven reached the server only after the first one's answer (150 ms later).
        #expect(received[1].timeIntervalSince(received[0]) >= 0.12, "\(received[1].timeIntervalSince(received[0]))")
    }

    @Test func theProviderTokenIsRenewedOnTheClockAndRotatedOnceWhenExpired() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let token = harness.device()
        #expect(await harness.client.send(harness.push(to: token)).outcome == .delivered)
        let first = try harness.client.tokens.token()
        // 51 minutes on: a new token, on the same connection (its last switch is older than 20 min).
        harness.clientClock.advance(minutes: 51)
        harness.sandboxClock.advance(minutes: 51)
        #expect(await harness.client.send(harness.push(to: token)).outcome == .delivered)
        let second = try harness.client.tokens.token()
        #expect(second.issuedAt == first.issuedAt + 51 * 60)
        #expect(Set(harness.sandbox.accepted(token: token).map(\.connectionID)).count == 1)
        // APNs' clock runs ahead: the cached token is refused as expired, rotated once, accepted.
        harness.clientClock.advance(minutes: 30)
        harness.sandboxClock.advance(minutes: 62)
        let rotated = await harness.client.send(harness.push(to: token))
        #expect(rotated.outcome == .delivered)
        #expect(rotated.attempts == 2)
        #expect(try harness.client.tokens.token().issuedAt == second.issuedAt + 30 * 60)
    }

    @Test func aTokenThatStaysExpiredIsReportedAfterOneRotation() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let token = harness.device()
        harness.sandboxClock.advance(minutes: 120)  // every token the client signs is 2 h old to APNs
        let result = await harness.client.send(harness.push(to: token))
        #expect(result.status == 403 && result.reason == .expiredProviderToken)
        #expect(result.outcome == .rotateToken)
        #expect(result.attempts == 2)
    }

    @Test func aSecondTokenWithinTwentyMinutesGoesOnANewConnection() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let token = harness.device()
        #expect(await harness.client.send(harness.push(to: token)).outcome == .delivered)
        // 10 minutes later APNs' clock says the token is expired: the rotated token may not be
        // used on this connection yet (TooManyProviderTokenUpdates), so a new connection takes it.
        harness.clientClock.advance(minutes: 10)
        harness.sandboxClock.advance(minutes: 61)  // the first token is 61 min old to APNs, the next one 51
        let result = await harness.client.send(harness.push(to: token))
        #expect(result.outcome == .delivered, "\(result.summary)")
        #expect(result.reason != .tooManyProviderTokenUpdates)
        #expect(Set(harness.sandbox.accepted(token: token).map(\.connectionID)).count == 2)
    }

    @Test func channelsAreCreatedListedUsedAndDeleted() async throws {
        let harness = try SandboxHarness()
        defer { harness.stop() }
        let bundle = harness.sandbox.bundleID
        let created = await harness.client.createChannel(bundleID: bundle, storagePolicy: .noMessageStored)
        #expect(created.status == 201)
        let channel = try #require(created.channelID)
        #expect(await harness.client.listChannels(bundleID: bundle).channels == [channel])
        let read = await harness.client.readChannel(bundleID: bundle, channelID: channel)
        #expect(read.status == 200)
        #expect(String(decoding: read.body, as: UTF8.self).contains(#""message-storage-policy":0"#))
        let sent = await harness.client.broadcast(
            APNSBroadcast(bundleID: bundle, channelID: channel, payload: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)))
        #expect(sent.status == 200 && sent.outcome == .delivered)
        #expect(harness.sandbox.accepted(channel: channel).count == 1)
        let storing = await harness.client.broadcast(
            APNSBroadcast(
                bundleID: bundle, channelID: channel, expiration: .at(Date().addingTimeInterval(3600)), payload: Array("{}".utf8)
            ))
        #expect(storing.status == 400 && storing.reason == .badExpirationDate)
        #expect(await harness.client.deleteChannel(bundleID: bundle, channelID: channel).status == 204)
        #expect(await harness.client.listChannels(bundleID: bundle).channels == [])
        let gone = await harness.client.broadcast(APNSBroadcast(bundleID: bundle, channelID: channel, payload: Array("{}".utf8)))
        #expect(gone.reason == .channelNotRegistered)
    }
}
