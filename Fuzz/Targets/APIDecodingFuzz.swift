import Foundation
import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTransitModel

/// Every request body the API decodes, with the API's decoder; a `DecodingError` becomes the
/// `DecodingProblem` the 400 answer names (its key path and reason). The first byte picks the
/// body type, the rest is the JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let body = Data(bytes.dropFirst())
    let decoders: [(Data) throws -> Any] = [
        { try decode(RegisterTokenRequest.self, $0) },
        { try decode(StartContextRequest.self, $0) },
        { try decode(PutContextRequest.self, $0) },
        { try decode(NotifyRequest.self, $0) },
        { try decode(ResolveRequest.self, $0) },
        { try decode(DismissedReport.self, $0) },
        { try decode(ReceiptReport.self, $0) },
        { try decode(OptInRequest.self, $0) },
        { try decode(AddShoppingItemRequest.self, $0) },
        { try decode(UpdateShoppingItemRequest.self, $0) },
        { try decode(ShoppingSessionRequest.self, $0) },
        { try decode(CreateCookSuggestSessionRequest.self, $0) },
        { try decode(CookSuggestAnswers.self, $0) },
        { try decode(CookSuggestProposalRequest.self, $0) },
        { try decode(CookSuggestStepRequest.self, $0) },
        { try decode(StartTripRequest.self, $0) },
        { try decode(WebPushSubscription.self, $0) },
        { try decode(ErrorBody.self, $0) },
    ]
    let pick = Int(bytes[0]) % decoders.count
    do {
        _ = try decoders[pick](body)
    } catch let error as DecodingError {
        let problem = DecodingProblem(error, in: body)
        _ = problem.description
    } catch {}
    return 0
}

/// Decodes and encodes again (a decoded value must encode).
private func decode<T: Codable>(_ type: T.Type, _ body: Data) throws -> T {
    let value = try APICoding.makeDecoder().decode(T.self, fromUntrusted: body)
    _ = try APICoding.makeEncoder().encode(value)
    return value
}
