import Foundation
import LivelineBench

// liveline-bench: benchmarks, not part of the product. See docs/testing.md, "Benchmarks".
let usage = """
    usage: liveline-bench push [COUNT (100000)] [WINDOW (100)]     APNSClient vs aioapns vs h2load
           liveline-bench fanout [TOKENS,… (1000,10000,100000)] [ROUNDS (3)]
                                                                   one PUT → every la-update token accepted, vs the client
                                                                   (ROUNDS for the largest size; smaller ones up to 30)
           liveline-bench seed-tokens FOLDER KEY COUNT             COUNT la-update tokens of KEY in FOLDER's database
           liveline-bench million PORT PID CONTROL ADMIN-KEY KEY TOKENS [ROUNDS (1)] [SANDBOX-PID]
                                                                   one PUT → TOKENS pushes, server and sandbox in processes
                                                                   of their own, vs the raw client (scripts/bench-million.sh)
           liveline-bench upsert [SECONDS (5)] [CONTEXTS (1000)] [THREADS (4)]
                                                                   puts/s in-process (the storage ceiling) vs raw SQLite
           liveline-bench seed-contexts FOLDER COUNT               COUNT /v1 trip contexts in FOLDER's database
           liveline-bench contract-put [SECONDS (3)] [CONTEXTS (1000)] [ROUNDS (3)]
                                                                   puts/s of a contract loaded at run time vs a built-in one
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
        let counts = arguments.count > 1 ? arguments[1].split(separator: ",").compactMap { Int($0) } : [1_000, 10_000, 100_000]
        try EngineBenchmark.fanout(counts: counts, rounds: number(2, 3), output: output)
    case "seed-tokens" where arguments.count > 3:
        try MillionBenchmark.seed(folder: URL(fileURLWithPath: arguments[1]), key: arguments[2], count: number(3, 1_000_000), output: output)
    case "million" where arguments.count > 6:
        try MillionBenchmark.run(
            port: number(1, 0), pid: number(2, 0), control: number(3, 0), adminKey: arguments[4], key: arguments[5], tokens: number(6, 1_000_000),
            rounds: number(7, 1), sandboxPID: arguments.count > 8 ? number(8, 0) : nil, output: output)
    case "upsert":
        try WriteBenchmark.upsert(seconds: Double(number(1, 5)), contexts: number(2, 1000), threads: number(3, 4), output: output)
    case "contract-put":
        try ContractBenchmark.put(seconds: Double(number(1, 3)), contexts: number(2, 1000), rounds: number(3, 3), output: output)
    case "seed-contexts" where arguments.count > 2:
        try WriteBenchmark.seedContexts(folder: URL(fileURLWithPath: arguments[1]), count: number(2, 1000), output: output)
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
