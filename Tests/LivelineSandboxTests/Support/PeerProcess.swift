import Foundation

/// Runs another program (an independent client) and collects its output.
enum PeerProcess {
    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` with `arguments`, killing it after `timeout` seconds.
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 120) async throws -> Output {
        try await Task.detached {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            do {
                try process.run()
            } catch {
                throw Failure(description: "could not run \(executable): \(error)")
            }
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + timeout)
            timer.setEventHandler { if process.isRunning { process.terminate() } }
            timer.resume()
            // Read both pipes before waiting, so a chatty peer cannot block on a full pipe.
            let errorData = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }
            let outputData = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            timer.cancel()
            return Output(
                status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                stderr: String(decoding: await errorData.value, as: UTF8.self)
            )
        }.value
    }

    /// The path of `name` on PATH (or the usual Debian places), if installed.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin", "/usr/local/bin"] {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
