import Foundation
import LivelineTestSupport
import Testing

/// The child processes tests start (`liveline serve`, independent peers): output, exit, signals,
/// what the child inherits, and that a run always ends.
@Suite struct ChildProcessTests {
    @Test func runCollectsOutputErrorsAndTheExitCodeApart() throws {
        let run = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(run.termination == .exited(3))
        #expect(String(decoding: run.output, as: UTF8.self) == "out\n")
        #expect(String(decoding: run.errors, as: UTF8.self) == "err\n")
    }

    @Test func inputAChildDoesNotReadIsNoFailure() throws {
        // More than a pipe holds, to a child that never reads: the write fails, nothing crashes.
        let run = try ChildProcess.run("/bin/true", input: Data(count: 1 << 20))
        #expect(run.termination == .exited(0))
        let echoed = try ChildProcess.run("/bin/cat", input: Data("hello".utf8))
        #expect(String(decoding: echoed.output, as: UTF8.self) == "hello")
    }

    @Test func theTimeoutEndsARunWhoseChildLeftSomethingHoldingItsOutput() throws {
        // The shell exits at once; its `sleep` keeps the pipes open for a minute unless the
        // timeout kills the whole process group.
        let started = Date()
        let run = try ChildProcess.run("/bin/sh", ["-c", "sleep 60 & echo started"], timeout: 1)
        #expect(String(decoding: run.output, as: UTF8.self) == "started\n")
        #expect(Date().timeIntervalSince(started) < 30, "returned after \(Date().timeIntervalSince(started)) s, not after the sleep")
    }

    @Test func aSignalEndsTheChildAndIsReported() throws {
        let child = try ChildProcess("/bin/sleep", ["60"])
        #expect(child.isRunning && child.termination == nil)
        child.terminate()
        #expect(child.wait(timeout: 20) == .signalled(SIGTERM))
        #expect(!child.isRunning)
        child.send(SIGKILL)  // ended: nothing is sent to a pid that may belong to another process
        #expect(child.waitUntilExit() == .signalled(SIGTERM))
    }

    @Test func theChildInheritsNoDescriptorButItsStandardStreams() throws {
        // A descriptor of the test process without close-on-exec must not reach the child.
        let open = Glibc.open("/dev/null", O_RDONLY)
        #expect(open > 2)
        defer { close(open) }
        let run = try ChildProcess.run("/bin/ls", ["/proc/self/fd"])
        let descriptors = Set(String(decoding: run.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) })
        // 0–2, and the one ls opened to read the directory.
        #expect(descriptors.subtracting([0, 1, 2]).count == 1, "\(descriptors.sorted())")
        #expect(!descriptors.contains(Int(open)) || open == 3)
    }

    @Test func aFileAsStandardInputIsReadNotTruncated() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-input-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("from a file".utf8).write(to: file)
        let child = try ChildProcess("/bin/cat", standardInput: .file(file.path), standardOutput: .pipe)
        let output = try #require(child.standardOutput).readDataToEndOfFile()
        #expect(child.waitUntilExit() == .exited(0))
        #expect(String(decoding: output, as: UTF8.self) == "from a file")
        #expect(try String(contentsOf: file, encoding: .utf8) == "from a file")
    }

    @Test func aChildDoesNotShareTheTestProcesssOutputUnlessAskedTo() throws {
        // A child holding the test runner's pipe would keep `swift test` waiting after a crash.
        let child = try ChildProcess("/bin/sh", ["-c", "echo \"$(readlink /proc/$$/fd/1)\" >&2"], standardError: .pipe)
        let errors = try #require(child.standardError).readDataToEndOfFile()
        #expect(child.waitUntilExit() == .exited(0))
        #expect(String(decoding: errors, as: UTF8.self) == "/dev/null\n")
    }

    @Test func aChildsCrashReportGoesToItsStandardErrorWhichTestsRead() throws {
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo \"$SWIFT_BACKTRACE\" >&2"], environment: ["SWIFT_BACKTRACE": "enable=yes,output-to=stdout"],
            standardError: .pipe)
        let errors = try #require(child.standardError).readDataToEndOfFile()
        #expect(child.waitUntilExit() == .exited(0))
        #expect(String(decoding: errors, as: UTF8.self) == "enable=yes,output-to=stderr\n")
    }

    @Test func aProgramThatDoesNotExistIsAnError() {
        #expect(throws: ChildProcess.Failure.self) { try ChildProcess("/nonexistent/program") }
    }
}
