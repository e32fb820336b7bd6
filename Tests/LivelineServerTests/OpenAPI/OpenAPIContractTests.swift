import Foundation
import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTestSupport
import LivelineTesting
import LivelineTransitModel
import Testing

/// The contract `/openapi.json` states, checked by schemathesis (PyPI, in the test virtualenv)
/// against a real server: every route, with the user's bearer token (`/api/…`) and with the admin
/// key (`/v1/…`, `/metrics`, …), every check (`--checks all`: no server error, status codes, content
/// types and bodies as documented, schema-valid requests accepted and invalid ones refused, auth
/// not ignored, `Allow` on 405), the links the document declares (stateful phase), a fixed seed and
/// a random one, both printed. The fixed seed's runs load `schemathesis_hooks.py` (it keeps a
/// put's state small enough for one push); the random seed's load nothing, as a client that knows
/// nothing of ours (the document alone must be exact). `docs/reliability.md`, "The API contract
/// (OpenAPI and schemathesis)".
@Suite struct OpenAPIContractTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let folder = root.appendingPathComponent("Tests/LivelineServerTests/OpenAPI")
    /// The fixed seed; the random one is printed beside it.
    static let fixedSeed: UInt32 = 20_261_202

    /// What one schemathesis run reported.
    struct Run: CustomStringConvertible {
        var name: String
        var seed: UInt32
        var termination: ChildProcess.Termination
        var output: String
        var seconds: Double

        /// The summary's `Test cases:` line: `N generated, M passed` (or `… found K unique failures`).
        var testCases: String {
            output.range(of: "Test cases:").map { String(output[$0.upperBound...].drop { $0.isWhitespace }.prefix { $0 != "\n" }) } ?? ""
        }
        var generated: Int? { Self.number(before: " generated", in: testCases) }
        var passed: Int? { Self.number(before: " passed", in: testCases) }
        /// `Tested: N` of the summary: the operations it reached.
        var operations: Int? { Self.number(after: "Tested: ", in: output) }
        /// `Selected: N/TOTAL`: the operations the document has.
        var documented: Int? { output.range(of: "Selected: ").flatMap { Self.number(after: "/", in: String(output[$0.upperBound...])) } }

        var description: String {
            "\(name) seed \(seed): \(operations ?? -1) operations, \(generated ?? -1) test cases generated, \(passed ?? -1) passed, "
                + "\(termination), \(String(format: "%.1f", seconds)) s"
        }

        static func number(after word: String, in text: String) -> Int? {
            text.range(of: word).flatMap { range in Int(text[range.upperBound...].prefix { $0.isNumber }) }
        }

        static func number(before word: String, in text: String) -> Int? {
            guard let range = text.range(of: word) else { return nil }
            return Int(String(text[..<range.lowerBound].reversed().prefix { $0.isNumber }.reversed()))
        }
    }

    @Test func schemathesisFindsNothingWithEitherAuthOnAFixedAndARandomSeed() throws {
        let st = Self.root.appendingPathComponent(".venv/bin/st")
        try #require(FileManager.default.isExecutableFile(atPath: st.path), "run scripts/test-venv.sh (creates .venv with schemathesis)")
        // Live: schemathesis, another process, sends its requests over HTTP.
        let server = try TestServer(.live) { $0.authFailuresPerMinute = 0 }
        defer { server.stop() }
        let (_, member) = try server.addUser(household: "Fisch", name: "Dennis")
        _ = try server.addUser(household: "Fisch", name: "Anna")
        let adminKey = server.app.adminKey
        // From a file: schemathesis leaves out the operation it loaded the document from.
        let document = server.folder.appendingPathComponent("openapi.json")
        let answer = try server.request("GET", "/openapi.json")
        #expect(answer.status == 200)
        try Data(answer.body).write(to: document)
        let given = ProcessInfo.processInfo.environment["LIVELINE_SCHEMATHESIS_SEED"].flatMap { UInt32($0) }
        let second = given ?? UInt32.random(in: 1...UInt32.max)
        print(
            "schemathesis seeds: fixed \(Self.fixedSeed), \(given == nil ? "random" : "given") \(second) "
                + "(again: LIVELINE_SCHEMATHESIS_SEED=\(second) swift test --filter OpenAPIContractTests)")
        let seeds = [Self.fixedSeed, second]

        var runs: [Run] = []
        for (index, seed) in seeds.enumerated() {
            let examples = index == 0 ? 15 : 10
            let hooks = index == 0
            let with = hooks ? "hooks" : "no hooks"
            runs.append(
                try Self.schemathesis(
                    "bearer, \(with)", server: server, token: member, seed: seed, examples: examples, hooks: hooks,
                    filter: ["--include-path-regex", "^/api/", "--exclude-path", "/api/me/sign-out"]))
            runs.append(
                try Self.schemathesis(
                    "admin, \(with)", server: server, token: adminKey, seed: seed, examples: examples, hooks: hooks,
                    filter: ["--exclude-path-regex", "^/api/"]))
            // Signing out ends the session it is called with: a token of its own (the calls after
            // the first are answered 401, as documented).
            let (_, leaving) = try server.addUser(household: "Fisch", name: "Leaving \(index)")
            runs.append(
                try Self.schemathesis(
                    "bearer (sign-out), \(with)", server: server, token: leaving, seed: seed, examples: examples, hooks: hooks,
                    filter: ["--include-path", "/api/me/sign-out", "--phases", "examples,coverage,fuzzing"]))
        }
        for run in runs {
            print("schemathesis \(run)")
            #expect(run.termination == .exited(0), "\(run): \(run.output.suffix(6000))")
            #expect(run.generated != nil && run.generated == run.passed, "\(run): \(run.output.suffix(3000))")
        }
        // Every route is documented, and every operation was reached, split among the three runs.
        let reached = runs.prefix(3).compactMap(\.operations).reduce(0, +)
        let failures = runs.map { ($0.generated ?? 0) - ($0.passed ?? 0) }.reduce(0, +)
        print(
            "schemathesis: \(reached) operations of \(runs.first?.documented ?? -1), \(runs.compactMap(\.generated).reduce(0, +)) test cases, "
                + "\(failures) failures, \(String(format: "%.0f", runs.map(\.seconds).reduce(0, +))) s")
        let routes = Routes.all.count + Routes.shopping.count + Routes.cookSuggest.count + Routes.transit.count
        #expect(runs.first?.documented == routes)
        #expect(reached == routes)
    }

    /// One `st run` of the document of `server`, with `token` as bearer, on the operations `filter`
    /// selects; with `schemathesis_hooks.py` and `schemathesis.toml` when `hooks`, else with no
    /// hooks and `schemathesis-without-hooks.toml`.
    static func schemathesis(
        _ name: String, server: TestServer, token: String, seed: UInt32, examples: Int, hooks: Bool, filter: [String]
    ) throws -> Run {
        let document = server.folder.appendingPathComponent("openapi.json").path
        var environment = ProcessInfo.processInfo.environment
        environment["SCHEMATHESIS_HOOKS"] = hooks ? folder.appendingPathComponent("schemathesis_hooks.py").path : nil
        environment["NO_COLOR"] = "1"
        let configuration = hooks ? "schemathesis.toml" : "schemathesis-without-hooks.toml"
        let started = Date()
        let result = try ChildProcess.run(
            root.appendingPathComponent(".venv/bin/st").path,
            [
                "--config-file", folder.appendingPathComponent(configuration).path, "run",
                document, "--url", "http://127.0.0.1:\(server.port)", "--checks", "all", "--header", "Authorization: Bearer \(token)",
                "--seed", String(seed), "--max-examples", String(examples), "--generation-database", "none", "--no-color",
                "--request-timeout", "30",
            ] + filter,
            environment: environment, timeout: 600)
        let output = String(decoding: result.output, as: UTF8.self) + String(decoding: result.errors, as: UTF8.self)
        return Run(name: name, seed: seed, termination: result.termination, output: output, seconds: Date().timeIntervalSince(started))
    }
}
