import Foundation
import LivelineTestSupport
import Testing

/// `liveline demo` as a real child process (docs/operations.md, "The demo"): it plays the three stories on
/// its own, stops by itself after `--for` or on SIGINT, checks every phone against the server,
/// and leaves no throw-away data behind.
@Suite struct DemoProcessTests {
    /// `liveline demo` with `arguments` (after `--port 0`), its standard error collected.
    static func demo(_ arguments: [String]) throws -> (ChildProcess, OutputCollector, standardOutput: OutputCollector) {
        try #require(FileManager.default.isExecutableFile(atPath: ServeProcess.executable.path), "build liveline first")
        // Standard output too: nothing may print the admin key there either.
        let process = try ChildProcess(
            ServeProcess.executable.path, ["demo", "--port", "0"] + arguments, environment: ServeProcess.baseEnvironment,
            standardOutput: .pipe, standardError: .pipe)

        return (process, OutputCollector(process.standardError!), OutputCollector(process.standardOutput!))
    }

    /// Waits until the process ended, at most `timeout` seconds (then it is killed and the test
    /// fails), on a thread of its own (a demo runs for tens of seconds: the test must not hold a
    /// thread the other tests' async code needs).
    static func end(_ process: ChildProcess, _ output: OutputCollector, timeout: TimeInterval) async throws -> String {
        let ended = try await offThePool { () -> Bool in
            guard process.wait(timeout: timeout) == nil else { return true }
            process.send(SIGKILL)
            process.waitUntilExit()
            return false
        }
        if !ended { Issue.record("liveline demo did not end within \(Int(timeout)) s") }
        return try await offThePool {
            let deadline = Date().addingTimeInterval(5)
            while !output.finished && Date() < deadline { usleep(5000) }
            return output.text
        }
    }

    /// Waits, on a thread of its own, until the running demo's output holds every one of `texts`
    /// (at most `timeout` seconds).
    static func waitFor(_ texts: [String], in output: OutputCollector, of process: ChildProcess, timeout: TimeInterval) async throws {
        try await offThePool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline, process.isRunning, !texts.allSatisfy({ output.text.contains($0) }) { usleep(20_000) }
        }
    }

    /// What the test needs to see while the demo plays, and could not once it stopped.
    struct WhilePlaying: Sendable {
        /// Why it could not be seen (nil: seen).
        var failure: String?
        /// The overview last read.
        var overview = ""
        /// The README's quick-start `PUT` with the admin key the demo said where to find: its
        /// status, then the activity page's card after it.
        var quickStart: (status: Int, card: String)?
    }

    /// The README's quick start, step 3: the body its `curl -X PUT …/v1/contexts/trip:42` sends
    /// (between `-d '` and the closing `'`), read from the README itself.
    static func quickStartBody() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let match = try #require(
            readme.firstMatch(of: /curl -X PUT localhost:8080\/v1\/contexts\/trip:42 [^\n]* -d '([^']+)'/),
            "README.md has no quick-start curl -X PUT of trip:42 with a -d '…' body")
        return String(match.1)
    }

    /// While the demo plays, on a thread of its own from start to end: waits (at most `timeout`
    /// seconds) for its dashboard link, signs in through the one-time link's page and its button's
    /// form, and reads the overview again until it lists every one of `types`, the demo ended or
    /// 30 s passed.
    /// One thread for all of it: a test task that waited for a pool thread between these steps
    /// (the suite's other tests keep the few there are busy) could find the demo already ended.
    static func watchDashboard(
        _ output: OutputCollector, of process: ChildProcess, listing types: [String], timeout: TimeInterval
    )
        async throws -> WhilePlaying
    {
        try await offThePool {
            let deadline = Date().addingTimeInterval(timeout)
            var link: (port: Int, path: String)?
            while link == nil, Date() < deadline, process.isRunning {
                if let match = output.text.firstMatch(of: /dashboard:  http:\/\/127\.0\.0\.1:(\d+)(\/dashboard\/sign-in\?once=[A-Za-z0-9_-]+)/),
                    output.text.contains("  phones:  "), let port = Int(match.1)
                {
                    link = (port, String(match.2))
                } else {
                    usleep(20_000)
                }
            }
            guard let link else {
                let state =
                    process.isRunning ? "printed no dashboard link within \(Int(timeout)) s" : "ended (\(String(describing: process.termination)))"
                return WhilePlaying(failure: "the demo \(state), printing:\n\(output.text)")
            }
            do {
                let session = try dashboardSession(port: link.port, linkPath: link.path)
                var overview = ""
                let listed = Date().addingTimeInterval(30)
                while process.isRunning, Date() < listed {
                    overview = try TestHTTPConnection(port: link.port).request("GET", "/dashboard", headers: ["Cookie": session]).text
                    if types.allSatisfy({ overview.contains("<tr><td>\($0)</td>") }) { break }
                    usleep(200_000)
                }
                return WhilePlaying(overview: overview, quickStart: try quickStart(output.text, port: link.port, session: session))
            } catch {
                let state = process.isRunning ? "runs" : "ended (\(String(describing: process.termination)))"
                return WhilePlaying(failure: "\(error); the demo \(state), printing:\n\(output.text)")
            }
        }
    }

    /// The README's quick-start `PUT` with the key from the file the demo printed, and the card
    /// of the activity page after it (nil when the demo printed no key file).
    static func quickStart(_ printed: String, port: Int, session: String) throws -> (status: Int, card: String)? {
        guard let path = printed.firstMatch(of: #/the admin key is in (\S+) /#)?.1,
            let key = try? String(contentsOfFile: String(path), encoding: .utf8)
        else { return nil }
        let put = try TestHTTPConnection(port: port).request(
            "PUT", "/v1/contexts/trip:42",
            headers: ["Authorization": "Bearer \(key.trimmingCharacters(in: .whitespacesAndNewlines))", "Content-Type": "application/json"],
            body: Array(try quickStartBody().utf8))
        let page = try TestHTTPConnection(port: port).request("GET", "/dashboard/activities/trip:42", headers: ["Cookie": session])
        return (put.status, page.text)
    }

    /// A session of the demo's dashboard, signed in through the one-time link's page and its
    /// button's form: the `Cookie` header to send.
    static func dashboardSession(port: Int, linkPath: String) throws -> String {
        struct Refused: Error, CustomStringConvertible { var description: String }
        let page = try TestHTTPConnection(port: port).request("GET", linkPath)
        guard page.status == 200, let cookie = page.setCookies.first?.split(separator: ";").first,
            let csrf = page.text.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1,
            let once = page.text.firstMatch(of: /name="once" value="([^"]+)"/)?.1
        else { throw Refused(description: "the one-time link's page is no sign-in form: \(page.status) \(page.text.prefix(500))") }
        let signedIn = try TestHTTPConnection(port: port).request(
            "POST", "/dashboard/sign-in", headers: ["Cookie": String(cookie), "Content-Type": "application/x-www-form-urlencoded"],
            body: Array("csrf=\(csrf)&once=\(once)".utf8))
        guard signedIn.status == 303, let session = signedIn.setCookies.first(where: { $0.hasPrefix("liveline_session=") }) else {
            throw Refused(description: "signing in answered \(signedIn.status) without a session cookie: \(signedIn.text.prefix(500))")
        }
        return String(session.split(separator: ";")[0])
    }

    /// The narration's lines of `story` (`08:03:10  tram      …`).
    static func lines(_ text: String, story: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.dropFirst(10).hasPrefix(story.padding(toLength: 8, withPad: " ", startingAt: 0)) }
    }

    @Test func aDemoForThirtySecondsPlaysEveryStoryEndsByItselfAndEveryPhoneShowsTheServersTruth() async throws {
        let (process, output, standardOutput) = try Self.demo(["--for", "30"])
        // While it plays: its one-time link signs in at once, and the dashboard comes to show all three kinds.
        let kinds = ["ShoppingActivityAttributes", "CookSuggestActivityAttributes", "TripLiveActivityAttributes"]
        let seen = try await Self.watchDashboard(output, of: process, listing: kinds, timeout: 40)
        if let failure = seen.failure {
            process.send(SIGKILL)
            _ = try await offThePool { process.waitUntilExit() }
            Issue.record(Comment(rawValue: failure))
            return
        }
        for type in kinds { #expect(seen.overview.contains("<tr><td>\(type)</td>"), "the dashboard's overview lacks \(type)") }
        // The README's quick start: the key file the demo names takes a PUT, and the card shows it.
        let quickStart = try #require(seen.quickStart, "the demo names no admin key file: \(output.text.prefix(800))")
        #expect(quickStart.status == 201, "the quick start's PUT answered \(quickStart.status)")
        #expect(quickStart.card.contains("Messe"), "the activity page shows no card of trip:42: \(quickStart.card.prefix(800))")
        let text = try await Self.end(process, output, timeout: 90)
        #expect(process.termination == .exited(0), "\(text)")
        #expect(!text.contains("lla_") && !standardOutput.text.contains("lla_"), "the admin key is never printed")
        // Shopping: the trip started, an item was checked off from the Dynamic Island, every phone's card shows it.
        let shopping = Self.lines(text, story: "shopping")
        #expect(shopping.contains { $0.contains("Dennis goes shopping") }, "\(shopping)")
        let checkOffs = shopping.compactMap { $0.firstMatch(of: /Dennis checks off (.+) in the Dynamic Island/)?.1 }
        let checkOff = try #require(checkOffs.first, "\(shopping)")
        let cards = Self.lines(text, story: "card")
        // A line names the phones that showed the change within the same quarter second; Dennis's
        // own card may show his check-off before the push reaches the others.
        let showing = cards.filter { $0.contains("Dennis packed \(checkOff) [") }
            .flatMap { $0.split(separator: " — ").last.map { $0.split(separator: ", ").map(String.init) } ?? [] }
        #expect(
            Set(showing) == ["dennis-iphone", "jaqueline-iphone", "jaqueline-old-iphone"],
            "\(cards.filter { $0.contains("🛒") })")
        // Her iOS 26 phone's shopping widget reloaded on the server's widget push and showed the week.
        let widget = Self.lines(text, story: "widget")
        #expect(widget.contains { $0.contains("jaqueline-iphone: widget shopping reloaded: shows rev ") }, "\(widget)")
        // Dinner: from the invitation to the decided dish, whose card ends on every phone.
        let dinner = Self.lines(text, story: "dinner")
        #expect(dinner.contains { $0.contains("Jaqueline taps the invitation") }, "\(dinner)")
        let dishes = dinner.compactMap { $0.firstMatch(of: /the dish is decided: ([^;]+);/)?.1 }
        let dish = try #require(dishes.first, "\(dinner)")
        #expect(
            cards.contains { $0.contains("🍳 Today: \(dish) (ended)") && $0.contains("jaqueline-old-iphone") }, "\(cards.filter { $0.contains("🍳") })")
        // Tram: the ride is taken and its card is on every phone (his by the app, hers by push-to-start).
        let tram = Self.lines(text, story: "tram")
        #expect(tram.contains { $0.contains("Dennis and Jaqueline take tram 5") }, "\(tram)")
        #expect(cards.contains { $0.contains("🚆 5 → ") && $0.contains("dennis-iphone, jaqueline-iphone, jaqueline-old-iphone") }, "\(cards)")

        // It stopped by itself and checked every card of every phone against the server.
        #expect(text.contains("liveline demo: stopping (30 s are up)"))
        let checked = text.split(separator: "\n").filter { $0.hasPrefix("  ✔ ") || $0.hasPrefix("  ✘ ") }
        #expect(!checked.isEmpty && checked.allSatisfy { $0.hasPrefix("  ✔ ") }, "\(checked)")
        for phone in ["dennis-iphone", "jaqueline-iphone", "jaqueline-old-iphone"] {
            for kind in ["shopping:", "cooksuggest:", "trip:"] {
                #expect(checked.contains { $0.contains(" \(phone) ") && $0.contains(" \(kind)") }, "\(phone) \(kind): \(checked)")
            }
        }
        #expect(text.contains("liveline demo: every card matches: \(checked.count) cards on 3 phones show the server's truth"))
        #expect(text.hasSuffix("liveline demo: stopped\n"), "\(text.suffix(300))")

        // The throw-away data folder is gone.
        let folder = try #require(text.firstMatch(of: /data in (\S+) \(deleted on exit\)/)?.1, "\(text.prefix(800))")
        #expect(!FileManager.default.fileExists(atPath: String(folder)), "\(folder)")
    }

    @Test func sigintStopsTheDemoCleanlyAndADataFolderIsKept() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-demo-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let (process, output, _) = try Self.demo(["--data", data.path])
        // Stopped in the middle of the stories: the shopping card is just being started on her
        // phones by push-to-start.
        try await Self.waitFor(["Dennis goes shopping"], in: output, of: process, timeout: 30)
        #expect(output.text.contains("Dennis goes shopping"), "\(output.text)")
        process.send(SIGINT)
        let text = try await Self.end(process, output, timeout: 45)
        #expect(process.termination == .exited(0), "\(text)")
        #expect(text.contains("liveline demo: stopping (signal)"))
        let matched = try #require(text.firstMatch(of: /liveline demo: every card matches: (\d+) cards on 3 phones/), "\(text.suffix(1500))")
        #expect(Int(matched.1)! >= 3, "the shopping card at least, on every phone")
        #expect(text.hasSuffix("liveline demo: stopped\n"), "\(text.suffix(300))")
        // A folder given with --data is kept, with its database and the demo clock's last time.
        #expect(!text.contains("deleted on exit"))
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("demo-clock").path))
        #expect(
            FileManager.default.fileExists(atPath: data.appendingPathComponent("liveline.sqlite").path),
            "\((try? FileManager.default.contentsOfDirectory(atPath: data.path)) ?? [])")
    }
}
