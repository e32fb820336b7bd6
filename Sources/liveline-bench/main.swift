import Foundation
import LivelineBench

// liveline-bench: benchmarks, not part of the product. See the README's "Benchmarks".
let usage = """
    usage: liveline-bench push [COUNT (100000)] [WINDOW (100)]     APNSClient vs aioapns vs h2load
           liveline-bench fanout [TOKENS (10000)] [ROUNDS (5)]     one PUT → every la-update token accepted
           liveline-bench upsert [SECONDS (5)]                     committed upserts/s in-process (storage ceiling)
           liveline-bench outbox URL [ROWS (50000)]                rows/s due → done, 1 vs 3 instances on PostgreSQL
           liveline-bench claim-latency URL [SAMPLES (500)] [MS]   insert → sent by another instance (LISTEN)
           liveline-bench webpush [PUSHES (10000)] [PEER PUSHES (PUSHES)] [LEAN ORIGIN]
                                                                   web pushes/s through notify vs pywebpush
           liveline-bench transit-load FEED                        read, check and store a GTFS feed: time, peak memory
           liveline-bench tracker [RIDES (10000)]                  the tracker's tick: idle with 100 and RIDES, 1 % due

    """
let arguments = Array(CommandLine.arguments.dropFirst())
func number(_ index: Int, _ fallback: Int) -> Int { arguments.count > index ? Int(arguments[index]) ?? fallback : fallback }
let output: @Sendable (String) -> Void = { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
do {
    switch arguments.first {
    case "push":
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                _ = try await PushBenchmark.run(count: number(1, 100_000), window: number(2, 100), repositoryRoot: root, output: output)
            } catch {
                print("benchmark failed: \(error)")
            }
            done.signal()
        }
        done.wait()
    case "fanout":
        try EngineBenchmark.fanout(tokens: number(1, 10_000), rounds: number(2, 5), output: output)
    case "upsert":
        try EngineBenchmark.upsert(seconds: Double(number(1, 5)), contexts: 1000, output: output)
    case "outbox" where arguments.count > 1:
        let rows = number(2, 50_000)
        let one = try OutboxBenchmark.throughput(url: arguments[1], rows: rows, instances: 1, output: output)
        let three = try OutboxBenchmark.throughput(url: arguments[1], rows: rows, instances: 3, output: output)
        output(
            String(
                format: "3 instances / 1 instance = %.2f× (goal ≥ 15,000 rows/s for one; 3 ≥ 2.5× one until the database is the limit)", three / one))
    case "claim-latency" where arguments.count > 1:
        try OutboxBenchmark.claimLatency(
            url: arguments[1], samples: number(2, 500), spacing: Double(number(3, 150)) / 1000, output: output)
    case "webpush":
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        try WebPushBenchmark.compare(
            pushes: number(1, 10_000), peerPushes: number(2, number(1, 10_000)), leanOrigin: arguments.count > 3 ? arguments[3] : nil,
            repositoryRoot: root,
            output: output)
    case "transit-load" where arguments.count > 1:
        try TransitBenchmark.load(feed: URL(fileURLWithPath: arguments[1]), output: output)
    case "tracker":
        try TransitBenchmark.tracker(rides: number(1, 10_000), output: output)
    default:
        FileHandle.standardError.write(Data(usage.utf8))
        exit(2)
    }
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}
