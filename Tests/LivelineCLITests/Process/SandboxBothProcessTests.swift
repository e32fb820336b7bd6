import Foundation
import LivelineTestSupport
import Testing

/// `liveline sandbox --environment both` as a real child process: a development and a production
/// sandbox with one key file and one CA file, the variables a server needs to use both (checked
/// by running `doctor` with them), and simulated iPhones each registered in the sandbox of its
/// environment.
@Suite struct SandboxBothProcessTests {
    @Test func bothSandboxesShareTheKeyAndCAAndEachDeviceLivesInItsOwn() async throws {
        let executable = ServeProcess.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build liveline first: \(executable.path)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-sandbox-both-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let devices = folder.appendingPathComponent("devices.json")
        try Data(
            #"{"devices": [{"id": "iphone-debug", "userId": 1, "householdId": 1}, {"id": "iphone-store", "userId": 1, "householdId": 1, "environment": "production"}]}"#
                .utf8
        ).write(to: devices)
        let data = folder.appendingPathComponent("sbx")
        let process = try ChildProcess(
            executable.path,
            [
                "sandbox", "--environment", "both", "--port", "0", "--management-port", "0", "--control-port", "0", "--production-port", "0",
                "--production-management-port", "0", "--production-control-port", "0", "--web-push-port", "0", "--production-web-push-port", "0",
                "--data", data.path, "--devices", devices.path,
            ],
            standardError: .pipe
        )
        defer { process.terminate() }
        let output = OutputCollector(try #require(process.standardError))
        #expect(await eventually(timeout: 20) { output.text.contains("device iphone-store:") && output.text.contains("device iphone-debug:") })
        let text = output.text

        // One block per sandbox, development first, each with its `key: value` lines.
        let blocks = text.components(separatedBy: "liveline sandbox: APNs sandbox listening (").dropFirst()
        try #require(blocks.count == 2, "\(text)")
        func values(_ block: String) -> [String: String] {
            var values: [String: String] = [:]
            for line in block.split(separator: "\n") where line.hasPrefix("  ") && line.contains(": ") {
                let parts = line.split(separator: ":", maxSplits: 1)
                values[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
            }
            return values
        }
        let development = values(blocks.first!)
        let production = values(blocks.last!)
        #expect(blocks.first!.hasPrefix("development environment)") && blocks.last!.hasPrefix("production environment)"))
        #expect(development["environment"] == "development" && production["environment"] == "production")
        let caFile = data.appendingPathComponent("cert.pem").path
        let keyFile = data.appendingPathComponent("AuthKey_LLKEY00001.p8").path
        for block in [development, production] {
            #expect(block["CA file"] == caFile && block["key file (.p8)"] == keyFile && block["key ID"] == "LLKEY00001")
        }
        let ports = try [development, production].flatMap { block in
            try ["device port", "management port", "control port"].map { try #require(block[$0].flatMap(Int.init), "\($0) in \(block)") }
        }
        #expect(Set(ports).count == 6, "six ports of their own: \(ports)")
        let webPushPorts = [development, production].compactMap { $0["web push port"].flatMap(Int.init) }
        #expect(webPushPorts.count == 2 && Set(webPushPorts + ports).count == 8, "a Web Push service each: \(webPushPorts)")
        for (index, environment) in ["development", "production"].enumerated() {
            let info = try TestHTTPConnection(port: ports[index * 3 + 2]).request("GET", "/sandbox")
            #expect(info.json?["environment"] as? String == environment && info.json?["devicePort"] as? Int == ports[index * 3])
        }

        // The variables of a server using both: the development sandbox as the default
        // environment, the production one as the other.
        var variables: [String: String] = [:]
        for match in text.matches(of: /\n  export (LIVELINE_APNS_[A-Z_]+)=([^\n]*)/) { variables[String(match.1)] = String(match.2) }
        #expect(
            variables == [
                "LIVELINE_APNS_KEY_PATH": keyFile, "LIVELINE_APNS_KEY_ID": "LLKEY00001", "LIVELINE_APNS_TEAM_ID": "LLTEAM0001",
                "LIVELINE_APNS_BUNDLE_ID": "dev.liveline.demo", "LIVELINE_APNS_ENVIRONMENT": "sandbox", "LIVELINE_APNS_HOST": "127.0.0.1",
                "LIVELINE_APNS_PORT": String(ports[0]), "LIVELINE_APNS_MANAGEMENT_PORT": String(ports[1]),
                "LIVELINE_APNS_PRODUCTION_HOST": "127.0.0.1", "LIVELINE_APNS_PRODUCTION_PORT": String(ports[3]),
                "LIVELINE_APNS_PRODUCTION_MANAGEMENT_PORT": String(ports[4]), "LIVELINE_APNS_CA_FILE": caFile,
            ], "\(text)")
        let doctor = CapturedOutput()
        doctor.environment = variables
        #expect(doctor.run(["doctor"]) == 0, "\(doctor.standardOutput)")
        #expect(doctor.standardOutput.contains("✔ development: connected to 127.0.0.1:\(ports[0])"))
        #expect(doctor.standardOutput.contains("✔ production: connected to 127.0.0.1:\(ports[3])"))

        // Each device's tokens are registered in the sandbox of its environment only.
        func alertToken(_ id: String) throws -> String {
            let line = try #require(text.split(separator: "\n").first { $0.contains("device \(id):") }, "\(text)")
            return String(try #require(line.firstMatch(of: /alert token ([0-9a-f]{64})/)?.1))
        }
        #expect(text.contains("device iphone-debug: iOS 18.0, development sandbox"))
        #expect(text.contains("device iphone-store: iOS 18.0, production sandbox"))
        let payload = folder.appendingPathComponent("alert.json")
        try Data(#"{"aps":{"alert":{"title":"From the right server"}}}"#.utf8).write(to: payload)
        func push(_ token: String, port: Int) -> CapturedOutput {
            let push = CapturedOutput()
            push.environment = variables.merging(["LIVELINE_APNS_PORT": String(port)]) { $1 }
            _ = push.run(["push", "--token", token, "--type", "alert", "--payload", payload.path])
            return push
        }
        let store = try alertToken("iphone-store")
        let debug = try alertToken("iphone-debug")
        #expect(push(store, port: ports[0]).standardOutput.contains("400 BadDeviceToken"), "unknown to the development sandbox")
        #expect(push(debug, port: ports[3]).standardOutput.contains("400 BadDeviceToken"), "unknown to the production sandbox")
        #expect(push(store, port: ports[3]).standardOutput.contains("status:   200"))
        #expect(push(debug, port: ports[0]).standardOutput.contains("status:   200"))
        #expect(
            await eventually(timeout: 10) {
                output.text.contains("device iphone-store applied: alert shown: From the right server")
                    && output.text.contains("device iphone-debug applied: alert shown: From the right server")
            }, "\(output.text)")

        process.terminate()
        #expect(await eventually(timeout: 30) { !process.isRunning }, "stops within 30 s of SIGTERM")
        #expect(process.termination == .exited(0))
        #expect(await eventually { output.finished })
        #expect(output.text.contains("liveline sandbox: stopped"))
    }
}
