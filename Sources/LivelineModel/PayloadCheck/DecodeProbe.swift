import Foundation

/// Decodes the value at a key path of a document with a **default** `JSONDecoder`, exactly as the
/// phone decodes `content-state` and `attributes`, and names the first failure.
///
/// The original bytes are decoded (not a re-encoded copy), so the error's key path is the path in
/// the document, e.g. `aps.content-state.nextOpen[1].label`.
struct DecodeProbe<Value: Decodable>: Decodable {
    static var pathKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "liveline.probePath")! }

    init(from decoder: any Decoder) throws {
        let path = decoder.userInfo[Self.pathKey] as? [String] ?? []
        guard let last = path.last else {
            _ = try Value(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: AnyCodingKey.self)
        for key in path.dropLast() {
            container = try container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey(key))
        }
        _ = try container.decode(Value.self, forKey: AnyCodingKey(last))
    }

    /// The first decoding failure of the value at `path` in `document`, or nil when it decodes.
    static func problem(decoding document: Data, at path: [String]) -> DecodingProblem? {
        let decoder = JSONDecoder()  // default strategies: what ActivityKit uses
        decoder.userInfo[pathKey] = path
        do {
            _ = try decoder.decode(Self.self, fromUntrusted: document)
            return nil
        } catch let error as DecodingError {
            return DecodingProblem(error, in: document)
        } catch {
            return DecodingProblem(path: path.map(DecodingProblem.Step.key), kind: .invalid)
        }
    }
}
