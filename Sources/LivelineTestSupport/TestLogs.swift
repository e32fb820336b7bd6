import Foundation
import LivelineLog

/// Where the servers of a test run write their logs so that one scan can read every line the
/// whole suite wrote (docs/testing.md: the log scan; `docs/reliability.md`, "Secrets in logs").
///
/// With `LIVELINE_TEST_LOG_DIR` set (as `scripts/test.sh` sets it), a test's server that would
/// otherwise discard its log (access log off, engine events at `error`) logs everything instead
/// — the access log and the engine's events at `debug` — into a file of this test process in
/// that folder, and a `liveline serve` child whose standard output nobody reads writes it to a
/// file there. The secrets the tests hand to servers that no pattern can recognise (admin keys,
/// VAPID keys) are written beside them, in files the scan reads and never prints. Without the
/// variable nothing changes.
public enum TestLogs {
    /// The folder, when this run collects logs.
    public static let directory: URL? = {
        guard let path = ProcessInfo.processInfo.environment["LIVELINE_TEST_LOG_DIR"], !path.isEmpty else { return nil }
        let url = URL(fileURLWithPath: path, isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// The file the in-process servers of this test process write to.
    public static let sink: LogSink? = {
        guard let directory else { return nil }
        let path = directory.appendingPathComponent("servers-\(getpid()).jsonl").path
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        atexit { TestLogs.flush() }  // the sink writes every 100 ms: keep the last lines too
        return LogSink(descriptor: descriptor)
    }()

    /// Makes a test server's configuration log everything into ``sink`` when the run collects
    /// logs and the test has not chosen a sink of its own (a test that reads its log keeps it).
    public static func collect(logSink: inout LogSink?, accessLog: inout String, logLevel: inout LogLevel) {
        guard logSink == nil, let sink else { return }
        logSink = sink
        accessLog = "stdout"  // with a sink set: the access log goes to the sink
        logLevel = .debug
    }

    /// Where a child's standard output goes when the test does not read it: a file of its own in
    /// the folder, or `/dev/null` when the run does not collect logs.
    public static func childOutput(_ name: String) -> ChildProcess.Stream {
        guard let directory else { return .null }
        return .file(directory.appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString.prefix(8)).jsonl").path)
    }

    /// Notes a secret a test gave a server (an admin key, the PEM of a VAPID key) for the scan.
    public static func recordSecret(_ secret: String) {
        guard let directory, secret.count >= LogScan.shortestSecret else { return }
        let line = Base64Line.encode(secret) + "\n"
        let path = directory.appendingPathComponent("secrets-\(getpid()).txt").path
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = line.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    }

    /// Notes what a server that a test started holds secret: its admin key, and its VAPID key
    /// when it made one in its data folder.
    public static func recordServerSecrets(adminKey: String, dataDirectory: URL) {
        guard directory != nil else { return }
        recordSecret(adminKey)
        let vapid = dataDirectory.appendingPathComponent("webpush-vapid-key.pem")
        if let pem = try? String(contentsOf: vapid, encoding: .utf8) { recordSecret(pem) }
    }

    /// Makes sure what the sink holds is on disk (the scan runs in another process).
    public static func flush() { sink?.flush() }
}

/// Secrets are kept one per line, base64-encoded (a PEM has line breaks of its own).
enum Base64Line {
    static func encode(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
    static func decode(_ line: Substring) -> String? {
        Data(base64Encoded: String(line)).flatMap { String(data: $0, encoding: .utf8) }
    }
}
