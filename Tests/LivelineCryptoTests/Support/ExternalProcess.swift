import Foundation

/// Runs an outside program (the `openssl` CLI, the test venv's Python) to check our output with an
/// independent implementation.
struct ExternalProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments`, feeding `input` on
    /// stdin, and waits for it. Output goes through temporary files so a chatty stderr cannot
    /// block a full stdout pipe.
    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> Output {
        let folder = try TemporaryFolder()
        let outURL = folder.url.appendingPathComponent("stdout")
        let errURL = folder.url.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }

        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
        }
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8)
        )
    }
}
