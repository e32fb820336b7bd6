import Foundation
import LivelineModel
import Testing

/// Golden fixtures (Tests/LivelineModelTests/Fixtures/<TypeName>/v<N>.json) and the repository's
/// example payloads.
enum Fixture {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The bytes of `Fixtures/<typeName>/v<version>.json`.
    static func data(_ typeName: String, version: Int) throws -> Data {
        guard let url = Bundle.module.url(forResource: "v\(version)", withExtension: "json", subdirectory: "Fixtures/\(typeName)") else {
            throw Missing(description: "no fixture Fixtures/\(typeName)/v\(version).json")
        }
        return try Data(contentsOf: url)
    }

    /// The versions that have a fixture for `typeName`, ascending.
    static func versions(_ typeName: String) throws -> [Int] {
        guard let folder = Bundle.module.url(forResource: typeName, withExtension: nil, subdirectory: "Fixtures") else {
            throw Missing(description: "no fixture folder Fixtures/\(typeName)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        return names.compactMap { name in
            guard name.hasPrefix("v"), name.hasSuffix(".json") else { return nil }
            return Int(name.dropFirst().dropLast(5))
        }.sorted()
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
