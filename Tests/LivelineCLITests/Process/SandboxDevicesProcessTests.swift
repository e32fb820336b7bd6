import Foundation
import LivelineTestSupport
import Testing

/// `liveline sandbox --devices FILE`: simulated iPhones attached to a standalone sandbox print
/// their tokens, receive what the sandbox accepts for them, and log every decision.
@Suite struct SandboxDevicesProcessTests {
    @Test func simulatedIPhonesFromAFileReceivePushesAndExplainThem() async throws {
        let executable = ServeProcess.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build liveline first: \(executable.path)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-devices-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let devices = folder.appendingPathComponent("devices.json")
        try Data(
            #"""
            {"seed": 3, "devices": [{"id": "iphone-cli", "userId": 1, "householdId": 1, "os": "17.2"},
              {"id": "iphone-widget", "userId": 1, "householdId": 1, "os": "26.0",
               "widgets": [{"kind": "shopping", "contextKeys": ["shopping:1:2026-01-05"]}]}]}
            """#.utf8
        ).write(to: devices)

        let process = try ChildProcess(
            executable.path,
            [
                "sandbox", "--port", "0", "--management-port", "0", "--control-port", "0", "--web-push-port", "0", "--data",
                folder.appendingPathComponent("sbx").path,
                "--devices", devices.path,
            ],
            standardError: .pipe
        )
        defer { process.terminate() }
        let output = OutputCollector(try #require(process.standardError))

        #expect(await eventually(timeout: 20) { output.text.contains("device iphone-cli:") && output.text.contains("device iphone-widget:") })
        let text = output.text
        func value(_ key: String) -> String? {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") }
                .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) }
        }
        let line = try #require(text.split(separator: "\n").first { $0.contains("device iphone-cli:") }, "\(text)")
        #expect(line.contains("iOS 17.2") && line.contains("(app offline: no server or token)"))
        let alert = try #require(line.firstMatch(of: /alert token ([0-9a-f]{64})/)?.1)
        #expect(!line.contains("widgets token"), "no widget token below iOS 26")
        let widgetLine = try #require(text.split(separator: "\n").first { $0.contains("device iphone-widget:") }, "\(text)")
        let widgetToken = try #require(widgetLine.firstMatch(of: /widgets token ([0-9a-f]{64}) \(shopping\)/)?.1, "\(widgetLine)")

        let payload = folder.appendingPathComponent("alert.json")
        try Data(#"{"aps":{"alert":{"title":"Hello from the CLI"}},"link":"/hello?from=cli"}"#.utf8).write(to: payload)
        let push = CapturedOutput()
        push.environment = [
            "LIVELINE_APNS_KEY_PATH": try #require(value("key file (.p8)")), "LIVELINE_APNS_KEY_ID": "LLKEY00001",
            "LIVELINE_APNS_TEAM_ID": "LLTEAM0001", "LIVELINE_APNS_HOST": "127.0.0.1",
            "LIVELINE_APNS_PORT": try #require(value("device port")), "LIVELINE_APNS_CA_FILE": try #require(value("CA file")),
        ]
        #expect(push.run(["push", "--token", String(alert), "--type", "alert", "--payload", payload.path]) == 0, "\(push.standardError)")
        #expect(
            await eventually(timeout: 10) {
                output.text.contains("device iphone-cli applied: alert shown: Hello from the CLI (link /hello?from=cli)")
            },
            "\(output.text)")

        // A WidgetKit push by hand reloads the widget's timeline (no server: nothing is read).
        let widgets = folder.appendingPathComponent("widgets.json")
        try Data(#"{"aps":{"content-changed":true}}"#.utf8).write(to: widgets)
        #expect(
            push.run(["push", "--token", String(widgetToken), "--type", "widgets", "--payload", widgets.path]) == 0, "\(push.standardError)")
        #expect(
            await eventually(timeout: 10) {
                output.text.contains("device iphone-widget event: widget shopping: a push reloads its timeline (priority 10)")
            },
            "\(output.text)")

        process.terminate()
        #expect(await eventually { !process.isRunning })
    }

    @Test func aBadDevicesFileIsRefusedNamingTheField() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-devices-bad-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("devices.json")
        for (json, expected) in [
            (#"{"devices": [{"id": "a", "userId": 1, "householdId": 1, "os": "seventeen"}]}"#, "devices[0].os: expected an iOS version like 18.0"),
            (#"{"devices": [{"id": "a", "householdId": 1}]}"#, "userId"),
            (#"{"devices": []}"#, "devices: expected at least one device"),
            (#"{"devices": [{"id": "a", "userId": 1, "householdId": 1, "token": "ll_x"}]}"#, "server: needed when a device has a token"),
        ] {
            try Data(json.utf8).write(to: file)
            let output = CapturedOutput()
            #expect(
                output.run(["sandbox", "--port", "0", "--management-port", "0", "--control-port", "0", "--data", folder.path, "--devices", file.path])
                    != 0)
            #expect(output.standardError.contains(expected), "\(json): \(output.standardError)")
        }
    }
}

/// Collects what a pipe delivers, on a thread of its own (never on a task's thread).
final class OutputCollector: @unchecked Sendable {
    private var collected = ""
    private var ended = false
    private let lock = NSLock()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty {
                    lock.withLock { ended = true }
                    return
                }
                lock.withLock { collected += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    var text: String { lock.withLock { collected } }
    /// The writer closed the pipe (the process ended).
    var finished: Bool { lock.withLock { ended } }
}
