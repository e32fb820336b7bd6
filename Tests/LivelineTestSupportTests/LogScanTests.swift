import Foundation
import LivelineTestSupport
import Testing

/// The scan for secrets in logs finds each kind of secret, and only shows a prefix of it.
@Suite struct LogScanTests {
    static let token = "ll_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbA"
    static let pushToken = String(repeating: "c0ffee01", count: 8)

    @Test func eachKindOfSecretIsFoundAndOnlyItsPrefixShown() {
        let scan = LogScan(secrets: ["an-admin-key-of-a-test-0123"])
        let lines: [(String, String)] = [
            (#"{"level":"info","event":"x","token":"\#(Self.token)"}"#, "bearer token or admin key"),
            (#"{"event":"x","key":"lla_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi"}"#, "bearer token or admin key"),
            (#"{"event":"push","token":"\#(Self.pushToken)"}"#, "push token"),
            (#"{"path":"/v1","authorization":"Bearer abcdefgh1234"}"#, "Authorization header"),
            (#"{"message":"-----BEGIN EC PRIVATE KEY-----"}"#, "PEM key"),
            (#"{"url":"postgresql://liveline:hunter2@127.0.0.1/db"}"#, "password in a URL"),
            (#"{"cookie":"v1.1796212345.bm9uY2Vub25jZW5vbmNl.bWFjbWFjbWFjbWFjbWFjbWFjbWFj"}"#, "dashboard session"),
            (#"{"link":"/dashboard/sign-in?once=bm9uY2Vub25jZW5vbmNlbm9uY2U"}"#, "dashboard sign-in link"),
            (#"{"message":"key an-admin-key-of-a-test-0123 refused"}"#, "a secret a test gave a server"),
        ]
        for (number, (line, kind)) in lines.enumerated() {
            let findings = scan.findings(in: Substring(line), file: "f.jsonl", number: number + 1)
            #expect(findings.map(\.kind) == [kind], "\(line)")
            for finding in findings { #expect(finding.excerpt.count <= 6 && !finding.description.contains("hunter2")) }
        }
    }

    @Test func whatTheServerLogsOnPurposePasses() {
        let scan = LogScan(secrets: ["an-admin-key-of-a-test-0123"])
        let clean = [
            #"{"ts":1712345678.123,"level":"debug","event":"pushAnswered","tokenPrefix":"c0ffee01","status":200,"apnsID":"8F1B5B5E-1C8D-4C43-9C0B-0E0B4A3A9F11"}"#,
            #"{"ts":1712345678.123,"method":"PUT","path":"/v1/contexts/trip:t-1","status":200,"ms":1.2}"#,
            #"{"url":"postgresql://liveline@127.0.0.1:5432/db"}"#,
            // A generated path of zeros is no push token.
            #"{"method":"GET","path":"/v1/contexts/\#(String(repeating: "0", count: 200))","status":400}"#,
            // `ll_` inside a word is no token.
            #"{"event":"migrationApplied","migration.name":"install_all_the_shopping_tables_v2"}"#,
        ]
        for line in clean { #expect(scan.findings(in: Substring(line), file: "f", number: 1).isEmpty, "\(line)") }
    }

    @Test func aPEMIsLookedForByEachOfItsLines() {
        let body = "MHcCAQEEIBx2k3Jm1vX5nOaq4dC0lTqQ8Jv8Wl0pXx2yF4sQwR9ZoAoGCCqGSM49"
        let scan = LogScan(secrets: ["-----BEGIN EC PRIVATE KEY-----\n\(body)\n-----END EC PRIVATE KEY-----\n"])
        #expect(scan.findings(in: Substring("leaked \(body.dropFirst(0))"), file: "f", number: 1).map(\.kind) == ["a secret a test gave a server"])
    }

    /// Files in a folder: lines counted, the secrets of `secrets-*.txt` (as ``TestLogs`` writes
    /// them) looked for.
    @Test func aFolderIsScannedWithTheSecretsWrittenBesideIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-logscan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{\"a\":1}\n{\"key\":\"the-recorded-key-0123\"}\n".utf8).write(to: folder.appendingPathComponent("servers-1.jsonl"))
        try Data((Data("the-recorded-key-0123".utf8).base64EncodedString() + "\n").utf8).write(
            to: folder.appendingPathComponent("secrets-1.txt"))
        let report = try LogScan.scan(folder: folder)
        #expect(report.files == 1 && report.lines == 2)
        #expect(report.findings.map(\.description) == ["servers-1.jsonl:2: a secret a test gave a server (the-…)"])
    }
}

/// Every log line the servers of this test run wrote (`LIVELINE_TEST_LOG_DIR`, see ``TestLogs``)
/// holds no bearer token, admin key, push token, VAPID key or database password. `scripts/test.sh`
/// runs it last, with `LIVELINE_LOG_SCAN=1`, after both backends' passes have written their logs.
@Suite struct SuiteLogScanTests {
    static let enabled = ProcessInfo.processInfo.environment["LIVELINE_LOG_SCAN"] == "1"

    @Test(.enabled(if: enabled, "runs after the suites, from scripts/test.sh"))
    func noLogLineOfTheWholeSuiteHoldsASecret() throws {
        let folder = try #require(TestLogs.directory, "LIVELINE_TEST_LOG_DIR names the run's log folder")
        let report = try LogScan.scan(folder: folder)
        print("log scan: \(report.files) files, \(report.lines) lines, \(report.bytes) bytes, \(report.findings.count) findings")
        // The suites really logged: in-process servers and `serve` children, requests and pushes.
        #expect(report.lines > 10_000)
        #expect(report.files >= 2)
        for finding in report.findings.prefix(50) { Issue.record("secret in a log line: \(finding)") }
    }
}
