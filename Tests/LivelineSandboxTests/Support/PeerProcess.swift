import Foundation
import LivelineTestSupport

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
        // On a thread of its own: the run blocks until the peer ends.
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let run = try ChildProcess.run(executable, arguments, timeout: timeout)
                    let status: Int32 =
                        switch run.termination {
                        case .exited(let code): code
                        case .signalled(let signal): 128 + signal
                        }
                    continuation.resume(
                        returning: Output(
                            status: status, stdout: String(decoding: run.output, as: UTF8.self), stderr: String(decoding: run.errors, as: UTF8.self)
                        ))
                } catch {
                    continuation.resume(throwing: Failure(description: "could not run \(executable): \(error)"))
                }
            }
        }
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
