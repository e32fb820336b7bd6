import Foundation
import LivelineTestSupport
import Testing

/// `liveline sandbox` as a real child process: it prints what a client needs, its control port
/// and Web Push service answer, and SIGTERM stops it gracefully.
@Suite struct SandboxProcessTests {
    @Test func sandboxPrintsItsPortsCAAndKeyAndStopsOnSIGTERM() throws {
        let executable = ServeProcess.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build liveline first: \(executable.path)")
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-sandbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let process = try ChildProcess(
            executable.path,
            [
                "sandbox", "--port", "0", "--management-port", "0", "--control-port", "0", "--web-push-port", "0", "--data", data.path,
                "--bundle-id", "com.example.cli",
            ],
            standardError: .pipe
        )
        defer { process.terminate() }
        let errors = try #require(process.standardError)

        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("device tokens:"), Date() < deadline {
            text += String(decoding: errors.availableData, as: UTF8.self)
        }
        func value(_ key: String) -> String? {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") }
                .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) }
        }
        let control = try #require(value("control port").flatMap(Int.init), "\(text)")
        #expect(value("device port").flatMap(Int.init) != nil && value("management port").flatMap(Int.init) != nil)
        #expect(value("CA file") == data.appendingPathComponent("cert.pem").path)
        #expect(value("key file (.p8)") == data.appendingPathComponent("AuthKey_LLKEY00001.p8").path)
        #expect(value("key ID") == "LLKEY00001" && value("team ID") == "LLTEAM0001" && value("bundle ID") == "com.example.cli")
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("AuthKey_LLKEY00001.p8").path))

        let info = try TestHTTPConnection(port: control).request("GET", "/sandbox")
        #expect(info.status == 200 && info.json?["bundleID"] as? String == "com.example.cli")
        let webPushPort = try #require(value("web push port").flatMap(Int.init), "\(text)")
        let origin = "http://127.0.0.1:\(webPushPort)"
        #expect(value("web push origin")?.hasPrefix(origin + "  ") == true && info.json?["webPushOrigin"] as? String == origin)
        let subscription = try TestHTTPConnection(port: webPushPort).request("POST", "/subscriptions")
        #expect(subscription.status == 201 && (subscription.json?["endpoint"] as? String)?.hasPrefix(origin + "/push/") == true)

        process.terminate()
        #expect(process.wait(timeout: 30) == .exited(0), "stops within 30 s of SIGTERM")
        #expect(String(decoding: errors.readDataToEndOfFile(), as: UTF8.self).contains("stopped"))
    }
}
