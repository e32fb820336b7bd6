import Testing

import LivelinePushWire
@testable import LivelineWebPush

/// The client's own limit of pushes in flight per push service origin (libcurl's left queued
/// transfers unstarted until its next poll timed out).
struct OriginLanesTests {
    static func transfer(_ endpoint: String) -> Transfer {
        Transfer(request: WebPushRequest(endpoint: endpoint, headers: [], body: []), completion: { _ in })
    }

    static func ids(_ transfers: [Transfer]) -> [ObjectIdentifier] { transfers.map(ObjectIdentifier.init) }

    @Test func atMostTheLimitPerOriginAreInFlightAndTheRestStartInOrder() {
        var lanes = OriginLanes(limit: 2, multiplexedLimit: 5)
        let a = (1...4).map { Self.transfer("https://push.example/\($0)") }
        let b = Self.transfer("https://other.example:8443/1")
        var admitted: [Bool] = []
        for transfer in a { admitted.append(lanes.admit(transfer)) }
        #expect(admitted == [true, true, false, false], "two in flight, two waiting")
        let otherOrigin = lanes.admit(b)
        #expect(otherOrigin, "another origin has its own places")
        let afterA1 = lanes.finished(a[1])
        #expect(Self.ids(afterA1) == Self.ids([a[2]]), "a place freed goes to the first waiting of the origin")
        let afterB = lanes.finished(b)
        let afterA0 = lanes.finished(a[0])
        let afterA2 = lanes.finished(a[2])
        let afterA3 = lanes.finished(a[3])
        #expect(afterB.isEmpty && Self.ids(afterA0) == Self.ids([a[3]]) && afterA2.isEmpty && afterA3.isEmpty)
        // All done: the origin's places are free again.
        let again = [lanes.admit(a[0]), lanes.admit(a[1]), lanes.admit(a[2])]
        #expect(again == [true, true, false])
        let left = lanes.removeAllWaiting()
        #expect(Self.ids(left) == Self.ids([a[2]]))
    }

    /// Thousands wait for one origin while a big batch goes out: each freed place goes to the
    /// next in the order they came, past the point where the taken ones are dropped.
    @Test func manyWaitingStartInTheOrderTheyCame() {
        var lanes = OriginLanes(limit: 3, multiplexedLimit: 3)
        let pushes = (0..<1000).map { Self.transfer("https://push.example/\($0)") }
        var inFlight = pushes.filter { lanes.admit($0) }
        #expect(inFlight.count == 3)
        var started: [Transfer] = []
        while !inFlight.isEmpty {
            let next = lanes.finished(inFlight.removeFirst())
            started += next
            inFlight += next
        }
        #expect(Self.ids(started) == Self.ids(Array(pushes[3...])), "each once, first come first")
        #expect(lanes.removeAllWaiting().isEmpty)
        // Some taken, some left: what shutdown gets is exactly those not started.
        for push in pushes.prefix(200) { _ = lanes.admit(push) }
        for push in pushes.prefix(100) { _ = lanes.finished(push) }
        let left = lanes.removeAllWaiting()
        #expect(Self.ids(left) == Self.ids(Array(pushes[103..<200])))
    }

    @Test func anOriginThatAnsweredOverHTTP2GetsMorePlacesAtOnce() {
        var lanes = OriginLanes(limit: 2, multiplexedLimit: 5)
        let pushes = (1...8).map { Self.transfer("https://push.example/\($0)") }
        var admitted = 0
        for transfer in pushes where lanes.admit(transfer) { admitted += 1 }
        #expect(admitted == 2)
        pushes[0].spokeHTTP2 = true
        let started = lanes.finished(pushes[0])
        // One in flight (pushes[1]) plus four: five, the multiplexed limit.
        #expect(Self.ids(started) == Self.ids(Array(pushes[2...5])))
        let more = lanes.admit(Self.transfer("https://push.example/9"))
        #expect(!more, "the five places are taken")
        let other = lanes.admit(Self.transfer("https://other.example/1"))
        let second = lanes.admit(Self.transfer("https://other.example/2"))
        let third = lanes.admit(Self.transfer("https://other.example/3"))
        #expect(other && second && !third, "another origin still has the HTTP/1.1 limit")
    }

    @Test func aPushWhoseTimeWentByWaitingIsNotSent() throws {
        let transfer = Self.transfer("https://push.example/1")
        let error = #expect(throws: WebPushError.self) { _ = try transfer.start(timeout: 0.05, caFile: nil, allowInsecure: false) }
        #expect("\(String(describing: error))".contains("not sent: no place among the pushes in flight"))
    }
}
