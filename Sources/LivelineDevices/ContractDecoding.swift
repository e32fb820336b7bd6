import Foundation
import LivelineModel

/// Decoding as the phone does (`docs/devices.md`, "Decoding"): a default `JSONDecoder` into the shared
/// model's types; the exact error when it fails.
extension LiveActivityContract {
    static func decodingError(contentState data: Data) -> String? {
        decodingError(data) { try JSONDecoder().decode(ContentState.self, from: data) }
    }

    static func decodingError(attributes data: Data) -> String? {
        decodingError(data) { try JSONDecoder().decode(Self.self, from: data) }
    }

    private static func decodingError(_ data: Data, _ decode: () throws -> Any) -> String? {
        do {
            _ = try decode()
            return nil
        } catch let error as DecodingError {
            return DecodingProblem(error, in: data).description
        } catch {
            return "\(error)"
        }
    }
}

extension ContractRegistry {
    /// Why `json` does not decode as the content state of `typeName` (nil: it does).
    func contentStateError(_ json: JSONValue, typeName: String) -> String? {
        guard let contract = contract(named: typeName) else { return "the app has no ActivityAttributes type \(typeName)" }
        return contract.decodingError(contentState: json.compactJSON)
    }

    func attributesError(_ json: JSONValue, typeName: String) -> String? {
        guard let contract = contract(named: typeName) else { return "the app has no ActivityAttributes type \(typeName)" }
        return contract.decodingError(attributes: json.compactJSON)
    }
}
