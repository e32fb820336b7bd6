import Foundation

/// A web-push token as the server first reads it: the subscription JSON decoded with
/// Foundation's decoder (as `TokenRegistrationRules.webPushSubscription` does), a decoding error
/// turned into the `DecodingProblem` the 400 names, and the stored form (`canonicalJSON`), which
/// must decode to the same subscription. The endpoint is parsed as the Web Push client parses it
/// for its origin (`VAPIDIdentity.origin(of:)`; registration's own rules are patterns, checked by
/// `FieldRuleTests`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let raw = Data(bytes: start, count: count)
    let subscription: WebPushSubscription
    do {
        subscription = try JSONDecoder().decode(WebPushSubscription.self, fromUntrusted: raw)
    } catch let error as DecodingError {
        _ = DecodingProblem(error, in: raw).description
        return 0
    } catch {
        return 0
    }
    let stored = subscription.canonicalJSON
    guard let again = try? JSONDecoder().decode(WebPushSubscription.self, from: Data(stored.utf8)), again == subscription else {
        fatalError("the stored form \(stored) does not decode to the subscription")
    }
    if let url = URLComponents(string: subscription.endpoint) {
        _ = (url.scheme?.lowercased(), url.host?.lowercased())
    }
    _ = Data(base64Encoded: subscription.keys.p256dh)
    return 0
}
