import Foundation
import Liveline
import LivelineEngine
import LivelineModel
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel

/// `liveline-bench contract-put`: a `PUT` of a contract loaded at run time beside one of the same
/// shape compiled in (`docs/performance.md`, "Contracts loaded at run time").
///
/// In one run on one fresh SQLite file: `Engine.putContext` on existing contexts of the built-in
/// `TripLiveActivityAttributes` and of `TripFileAttributes`, a contract file with the same keys
/// put through the library (so its check is the file's schema, plus the versions installed on
/// the context's devices), in alternating rounds, one thread.
public enum ContractBenchmark {
    static let loadedType = "TripFileAttributes"

    public static func put(seconds duration: Double, contexts: Int, rounds: Int, output: @Sendable (String) -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.openSQLite(folder: folder)
        let engine = Engine(
            store: store, sender: RecordingPushSender(), configuration: EngineConfiguration(bundleID: "dev.liveline.demo"),
            registry: Assembly.contracts())
        let file = ContractFile(typeName: loadedType, version: 1, schema: TripLiveActivityAttributes.schema)
        try engine.library.put(file, origin: .api)
        let attributes = try JSONValue(json: Data(WriteBenchmark.attributes.utf8))
        let states = try (0..<30).map { try JSONValue(json: Data(WriteBenchmark.contentState(delay: $0).utf8)) }
        for type in [TripLiveActivityAttributes.typeName, loadedType] {
            for index in 0..<contexts {
                try engine.putContext(key: key(type, index), PutContextRequest(type: type, attributes: attributes, contentState: states[0]))
            }
        }
        var rates: [String: [Double]] = [:]
        for _ in 0..<rounds {
            for type in [TripLiveActivityAttributes.typeName, loadedType] {
                let rate = try WriteBenchmark.rate(seconds: duration, threads: 1) { counter in
                    let put = PutContextRequest(type: type, attributes: attributes, contentState: states[counter % 30])
                    _ = try engine.putContext(key: key(type, Int.random(in: 0..<contexts)), put)
                }
                rates[type, default: []].append(rate)
            }
        }
        let builtIn = rates[TripLiveActivityAttributes.typeName, default: [0]].max()!
        let loaded = rates[loadedType, default: [0]].max()!
        output("Engine.putContext on \(contexts) contexts of each type, best of \(rounds) alternating rounds of \(Int(duration)) s, 1 thread:")
        output(String(format: "  built-in TripLiveActivityAttributes (its Swift type):  %8.0f puts/s", builtIn))
        output(String(format: "  loaded %@ (a contract file, same keys):  %8.0f puts/s", loadedType, loaded))
        output(String(format: "loaded / built-in = %.2f× (goal ≥ 0.9×)", loaded / builtIn))
    }

    static func key(_ type: String, _ index: Int) -> String {
        (type == loadedType ? "tripfile:bench-" : "trip:bench-") + String(index)
    }
}
