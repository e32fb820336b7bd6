import Foundation
import LivelineTestSupport

/// Runs an outside program (the `openssl` CLI, the test venv's Python) to check our output with an
/// independent implementation.
struct ExternalProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments`, feeding `input` on
    /// stdin, and waits for it.
    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> Output {
        let run = try ChildProcess.run(executable, arguments, input: input.map { Data($0.utf8) })
        let status: Int32 =
            switch run.termination {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        return Output(status: status, stdout: String(decoding: run.output, as: UTF8.self), stderr: String(decoding: run.errors, as: UTF8.self))
    }
}
