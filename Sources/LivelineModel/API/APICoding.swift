import Foundation

/// How API request and response bodies are encoded: dates as ISO 8601 strings (UTC), every other
/// value as Foundation does by default. The server and the client SDK both use these, so they
/// agree. (Live Activity payloads are different: they use Foundation's defaults throughout,
/// because that is what ActivityKit decodes — see `docs/contracts.md`.)
public enum APICoding {
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
