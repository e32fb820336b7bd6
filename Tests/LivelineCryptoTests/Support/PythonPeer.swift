import Foundation
import Testing

/// PyJWT, `cryptography` and `http_ece` in the test-only virtualenv at `<repo>/.venv`, used as
/// independent ES256/JWT and Web Push encryption implementations. `scripts/test-venv.sh` creates it; a missing venv fails the test.
enum PythonPeer {
    /// The repository root, from this file's path (`<root>/Tests/LivelineCryptoTests/Support/`).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var python: URL { repositoryRoot.appendingPathComponent(".venv/bin/python") }

    /// Runs `script` with the venv's Python, `input` on stdin, and decodes its stdout as JSON.
    /// Fails the test (never skips) when the venv is missing or the script fails.
    static func run(_ script: String, input: [String: Any]) throws -> [String: Any] {
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "\(python.path) is missing: run scripts/test-venv.sh to create the test virtualenv (PyJWT, cryptography, http_ece)"
        )
        let stdin = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        let output = try ExternalProcess.run(python.path, ["-c", script], input: stdin)
        try #require(output.status == 0, "python failed (status \(output.status)): \(output.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
        return try #require(object as? [String: Any], "python printed no JSON object: \(output.stdout)")
    }
}
