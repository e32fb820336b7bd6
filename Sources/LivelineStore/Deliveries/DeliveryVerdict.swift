/// What the answer to a delivery attempt says, for counting: accepted, refused, or none came.
///
/// Every 2xx accepts: APNs answers a push 200, a channel's creation 201 and its deletion 204
/// (`docs/apns.md` §1.6, §1.8); a push service answers a web push 201 (RFC 8030 §5). Any other
/// status refuses (4xx, 5xx, whether or not it is retried); status 0 is no answer (a connection
/// failure, a timeout).
public enum DeliveryVerdict: Sendable, Hashable, CaseIterable {
    case accepted
    case refused
    case unanswered

    public init(status: Int) {
        self = status == 0 ? .unanswered : (200..<300).contains(status) ? .accepted : .refused
    }
}
