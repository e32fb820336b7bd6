import Foundation
import LivelineModel

/// Decoding as the phone does (`docs/devices.md`, "Decoding"): a default `JSONDecoder` into the
/// app's type when it is compiled in, else the contract file's schema; the exact error when it fails.
extension ContractRegistry {
    /// Why `json` does not decode as the content state of `typeName` (nil: it does).
    func contentStateError(_ json: JSONValue, typeName: String) -> String? {
        guard let contract = contract(named: typeName) else { return "the app has no ActivityAttributes type \(typeName)" }
        return contract.decodingError(.contentState, json: json.compactJSON)
    }

    func attributesError(_ json: JSONValue, typeName: String) -> String? {
        guard let contract = contract(named: typeName) else { return "the app has no ActivityAttributes type \(typeName)" }
        return contract.decodingError(.attributes, json: json.compactJSON)
    }
}
