import Testing

@testable import LivelineWebPush

/// The client's own limit of pushes in flight per push service origin (libcurl's left queued
/// transfers unstarted until its next poll timed out).
struct OriginLanesTests {
    static func transfer(_ endpoint: String) -> Transfer {
        Transfer(request: WebPushRequest(endpoint: endpoint, headers: [], body: []), completion: { _ in })
    }

    @Test func atMostTheLimitPerOriginAreInFlightAndTheRestStartInOrder() {
        var lanes = OriginLanes(limit: 2)
        let a = (1...4).map { Self.transfer("https://push.example/\($0)") }
        let b = Self.transfer("https://other.example:8443/1")
        var admitted: [Bool] = []
        for transfer in a { admitted.append(lanes.admit(transfer)) }
        #expect(admitted == [true, true, false, false], "two in flight, two waiting")
        let otherOrigin = lanes.admit(b)
        #expect(otherOrigin, "another origin has its own places")
        let afterA1 = lanes.finished(a[1])
        #expect(afterA1 === a[2], "a place freed goes to the first waiting of the origin")
        let afterB = lanes.finished(b)
        let afterA0 = lanes.finished(a[0])
        let afterA2 = lanes.finished(a[2])
        let afterA3 = lanes.finished(a[3])
        #expect(afterB == nil && afterA0 === a[3] && afterA2 == nil && afterA3 == nil)
        // All done: the origin's places are free again.
        let again = [lanes.admit(a[0]), lanes.admit(a[1]), lanes.admit(a[2])]
        #expect(again == [true, true, false])
        let left = lanes.removeAllWaiting()
        #expect(left.map(ObjectIdentifier.init) == [ObjectIdentifier(a[2])])
    }

    @Test func aPushWhoseTimeWentByWaitingIsNotSent() throws {
        let transfer = Self.transfer("https://push.example/1")
        let error = #expect(throws: WebPushError.self) { _ = try transfer.start(timeout: 0.05, caFile: nil, allowInsecure: false) }
        #expect("\(String(describing: error))".contains("no connection to the push service was free within"))
    }
}
