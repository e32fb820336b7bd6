import Foundation
import LivelineModel
import Testing

/// The built-in contracts' example payloads (`examples/payloads`, each identical to its feature
/// model's v1 fixture, `Tests/Liveline<Feature>ModelTests/Fixtures`), which the generic model's
/// tests check payloads with.
enum Fixture {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The example payload of `typeName`'s version 1 (`examples/payloads`).
    static func data(_ typeName: String, version: Int) throws -> Data {
        let files = [
            "ShoppingActivityAttributes": "shopping-update.json", "CookSuggestActivityAttributes": "cooksuggest-update.json",
            "TripLiveActivityAttributes": "trip-start.json",
        ]
        guard version == 1, let file = files[typeName] else { throw Missing(description: "no example payload of \(typeName) v\(version)") }
        return try Data(contentsOf: repositoryRoot.appendingPathComponent("examples/payloads").appendingPathComponent(file))
    }

    /// The repository root, found from this file's path (Tests/LivelineModelTests/Support/…).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `examples/payloads/*.json`, the files users run `liveline contracts check` on.
    static func examplePayloads() throws -> [URL] {
        let folder = repositoryRoot.appendingPathComponent("examples/payloads")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") }.sorted().map { folder.appendingPathComponent($0) }
    }
}

/// JSON helpers for building broken copies of a payload.
enum JSONEdit {
    static func object(_ data: Data) throws -> [String: JSONValue] {
        try #require(try JSONValue(json: data).objectValue)
    }

    /// Applies `edit` to `aps.<member>` of `data` and returns the new bytes.
    static func editing(_ data: Data, _ member: String, _ edit: (inout [String: JSONValue]) -> Void) throws -> Data {
        var root = try object(data)
        var aps = try #require(root["aps"]?.objectValue)
        var inner = try #require(aps[member]?.objectValue)
        edit(&inner)
        aps[member] = .object(inner)
        root["aps"] = .object(aps)
        return JSONValue.object(root).compactJSON
    }

    /// Applies `edit` to the `aps` dictionary of `data`.
    static func editingAPS(_ data: Data, _ edit: (inout [String: JSONValue]) -> Void) throws -> Data {
        var root = try object(data)
        var aps = try #require(root["aps"]?.objectValue)
        edit(&aps)
        root["aps"] = .object(aps)
        return JSONValue.object(root).compactJSON
    }
}

extension Date {
    /// 2026-06-18 08:00:00 UTC: "now" for checks of the example payloads.
    static let exampleNow = Date(timeIntervalSince1970: 1_781_784_000)  // 2026-06-18 12:00 UTC: within 8 h of every example's timestamp
}
