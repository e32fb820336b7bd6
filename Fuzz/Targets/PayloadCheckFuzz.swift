import Foundation
import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTransitModel

/// Raw JSON through the payload check, as `liveline check` and the server see it: with no
/// contract (the `attributes-type` decides), then as each known contract, on both destinations.
/// Bad input is a report full of problems, never a trap.
///
/// Also the JSON reader and writer beside Foundation's: what `JSONParser` accepts `JSONDecoder`
/// accepts too, as the same value (JSONDecoder is more lenient: it takes `[1,]`); what it reads,
/// `JSONWriter` writes back to bytes it reads as the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let json = Data(bytes: start, count: count)
    if let parsed = try? JSONValue(json: json) {
        guard let foundation = try? JSONDecoder().decode(JSONValue.self, from: json) else {
            fatalError("JSONParser accepted what JSONDecoder refuses: \(Array(json))")
        }
        guard foundation == parsed else { fatalError("JSONParser read \(parsed), JSONDecoder \(foundation)") }
        guard let again = try? JSONValue(json: parsed.compactJSON), again == parsed else {
            fatalError("JSONWriter wrote \(parsed.compactText), which does not read back as the same value")
        }
    }
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    for destination in [PushDestination.device, .broadcast] {
        let check = PayloadCheck(destination: destination, now: now, registry: .builtIn)
        _ = check.check(json: json, typeName: nil).text(file: "fuzz.json", destination: destination)
        for name in ContractRegistry.builtIn.names {
            _ = check.check(json: json, typeName: name)
        }
    }
    return 0
}

extension ContractRegistry {
    /// The built-in contracts, from their features' models.
    static let builtIn = ContractRegistry([
        ShoppingActivityAttributes.self, CookSuggestActivityAttributes.self, TripLiveActivityAttributes.self,
    ])
}
