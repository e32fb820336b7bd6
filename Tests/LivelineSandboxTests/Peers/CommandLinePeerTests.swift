import Foundation
import Testing
@testable import LivelineSandbox

/// Debian's HTTP/2 command-line clients against the sandbox: curl (libcurl + nghttp2) and h2load
/// (nghttp2's load generator). Both come from scripts/install-deps.sh.
@Suite struct CommandLinePeerTests {
    static func tool(_ name: String) -> String? {
        let path = PeerProcess.which(name)
        if path == nil { Issue.record("\(name) is not installed: run scripts/install-deps.sh") }
        return path
    }

    @Test func curlOverHTTP2GetsHeadersOnly200sAndJSONErrors() async throws {
        guard let curl = Self.tool("curl") else { return }
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let base = ["--http2", "--silent", "--show-error", "--cacert", harness.sandbox.certificateFile.path]
        let headers = try harness.liveActivityHeaders().flatMap { ["-H", "\($0.name): \($0.value)"] }
        let url = "https://localhost:\(harness.sandbox.devicePort)/3/device/\(SandboxHarness.token)"
        let ok = try await PeerProcess.run(
            curl,
            base + headers + [
                "--data-binary", String(decoding: SandboxHarness.liveActivityPayload, as: UTF8.self), "--dump-header", "-",
                "--write-out", "\\n%{http_version} %{http_code} %{size_download}", url,
            ])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.hasSuffix("2 200 0"), "\(ok.stdout)")
        #expect(ok.stdout.contains("apns-id: ") && ok.stdout.contains("apns-unique-id: "))

        let refused = try await PeerProcess.run(
            curl,
            base + headers + [
                "--data-binary", "", "--write-out", "\\n%{http_version} %{http_code}", url,
            ])
        #expect(refused.stdout == "{\"reason\":\"PayloadEmpty\"}\n2 400", "\(refused.stdout)")
        #expect(harness.sandbox.accepted(token: SandboxHarness.token).count == 1)
    }

    @Test func h2loadPushesThousandsOverSeveralConnections() async throws {
        guard let h2load = Self.tool("h2load") else { return }
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let payload = FileManager.default.temporaryDirectory.appendingPathComponent("h2load-payload-\(getpid()).json")
        try Data(SandboxHarness.liveActivityPayload).write(to: payload)
        defer { try? FileManager.default.removeItem(at: payload) }
        let headers = try harness.liveActivityHeaders().flatMap { ["-H", "\($0.name): \($0.value)"] }
        let run = try await PeerProcess.run(
            h2load,
            ["-n", "5000", "-c", "4", "-m", "50", "-t", "1", "-d", payload.path] + headers + [
                "https://127.0.0.1:\(harness.sandbox.devicePort)/3/device/\(SandboxHarness.token)"
            ])
        #expect(run.stdout.contains("5000 succeeded, 0 failed, 0 errored"), "\(run.stdout)")
        #expect(run.stdout.contains("status codes: 5000 2xx"), "\(run.stdout)")
        #expect(run.stdout.contains("Application protocol: h2"))
        #expect(harness.sandbox.accepted(token: SandboxHarness.token).count == 5000)
        #expect(Set(harness.sandbox.accepted(token: SandboxHarness.token).map(\.connectionID)).count == 4)
    }
}
