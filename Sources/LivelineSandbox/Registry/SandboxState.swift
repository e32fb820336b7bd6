import Foundation

/// Everything the sandbox remembers, behind one lock in `SandboxCore`.
struct SandboxState: Sendable {
    var clock: @Sendable () -> Date
    /// Apps whose topics are allowed.
    var bundles: Set<String> = []
    /// By lower-case hex token.
    var devices: [String: DeviceRecord] = [:]
    /// By channel ID.
    var channels: [String: ChannelRecord] = [:]
    /// Channel IDs per app, in creation order.
    var channelOrder: [String: [String]] = [:]
    /// Every channel ID ever issued (never reissued, even after `reset()`).
    var issuedChannelIDs: Set<String> = []
    var acceptedByToken: [String: [AcceptedPush]] = [:]
    var acceptedByChannel: [String: [AcceptedPush]] = [:]
    var acceptedCount = 0
    /// ``SandboxConfiguration/acceptedKept``.
    var kept: (perTarget: Int, total: Int)?
    /// Targets in the order their pushes were accepted (for dropping the oldest when bounded).
    var keptOrder: [(token: String?, channel: String?)] = []
    var keptHead = 0
    var connections: [ConnectionKey: ConnectionBinding] = [:]
    var faults = SandboxFaults.none
    /// Share-fault draws made since `faults` was set.
    var faultDraws: UInt64 = 0

    init(clock: @escaping @Sendable () -> Date) {
        self.clock = clock
    }

    /// Keeps `push` (taken, not copied, when it goes to one list).
    mutating func record(_ push: consuming AcceptedPush) {
        let token = push.token
        let channel = push.channelID
        if let channel { acceptedByChannel[channel, default: []].append(copy push) }
        if let token {
            if let index = acceptedByToken.index(forKey: token) {
                // The token's text as the list's key already holds it: one copy kept, not one per push.
                push.token = acceptedByToken.keys[index]
                acceptedByToken.values[index].append(push)
            } else {
                acceptedByToken[token] = [push]
            }
        }
        acceptedCount += 1
        guard let kept else { return }
        if let token, let count = acceptedByToken[token]?.count, count > kept.perTarget {
            acceptedByToken[token]?.removeFirst(count - kept.perTarget)
        }
        if let channel, let count = acceptedByChannel[channel]?.count, count > kept.perTarget {
            acceptedByChannel[channel]?.removeFirst(count - kept.perTarget)
        }
        keptOrder.append((token, channel))
        // Over the total: the oldest accepted push goes (from its target's list, oldest first).
        while keptOrder.count - keptHead > kept.total {
            let (token, channel) = keptOrder[keptHead]
            keptHead += 1
            if let token, acceptedByToken[token]?.isEmpty == false {
                acceptedByToken[token]?.removeFirst()
                if acceptedByToken[token]?.isEmpty == true { acceptedByToken[token] = nil }
            }
            if let channel, acceptedByChannel[channel]?.isEmpty == false {
                acceptedByChannel[channel]?.removeFirst()
                if acceptedByChannel[channel]?.isEmpty == true { acceptedByChannel[channel] = nil }
            }
        }
        if keptHead > 4096, keptHead * 2 > keptOrder.count {
            keptOrder.removeFirst(keptHead)
            keptHead = 0
        }
    }

    /// The share fault for the next push that would be accepted, if any.
    mutating func drawFault() -> APNSRejection? {
        let shares = faults.internalErrorShare + faults.unavailableShare + faults.tooManyRequestsShare
        guard shares > 0 else { return nil }
        let draw = FaultDice.draw(seed: faults.seed, index: faultDraws)
        faultDraws += 1
        if draw < faults.internalErrorShare { return APNSRejection(500, .internalServerError) }
        if draw < faults.internalErrorShare + faults.unavailableShare { return APNSRejection(503, .serviceUnavailable) }
        if draw < shares { return APNSRejection(429, .tooManyRequests) }
        return nil
    }
}
