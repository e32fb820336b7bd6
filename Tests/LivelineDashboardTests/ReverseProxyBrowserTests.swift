import Foundation
import LivelineCrypto
import LivelineTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The dashboard behind nginx with TLS, set up by the committed `deploy/nginx/liveline.conf`
/// (docs/reverse-proxy.md): the test replaces only the file's placeholders (the upstream's port,
/// the ports it listens on, a self-signed certificate openssl makes in a temporary folder), runs
/// nginx on it, and starts a live server whose `LIVELINE_PUBLIC_URL` is nginx's https address.
/// `Browser/reverse_proxy.py` (headless chromium, trusting that certificate's key) then goes
/// through nginx only: it opens the one-time sign-in link the server made, finds the session
/// cookie `Secure`, opens an activity's page and sees it follow a change it makes through `/v1`
/// within a few seconds — the page's Server-Sent Events pass nginx unbuffered. Once with HTTP/2
/// from the browser to nginx, once with HTTP/1.1: with the events' location buffered, nginx holds
/// an HTTP/1.1 stream back until its buffers fill, and that case fails (docs/reverse-proxy.md,
/// "How it is tested"). Fails, never skips, without nginx, openssl, chromium, chromium-driver or
/// the test virtualenv (`scripts/install-deps.sh`, `scripts/test-venv.sh`).
@Suite struct ReverseProxyBrowserTests {
    static let site = DashboardBrowserTests.root.appendingPathComponent("deploy/nginx/liveline.conf")
    static let script = DashboardBrowserTests.root.appendingPathComponent("Tests/LivelineDashboardTests/Browser/reverse_proxy.py")
    static let nginx = "/usr/sbin/nginx"
    static let openssl = "/usr/bin/openssl"

    /// nginx and openssl are there; else the test fails saying what to install.
    static func requireProxyTools() throws {
        for (tool, package) in [(nginx, "nginx"), (openssl, "openssl")] {
            try #require(
                FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/install-deps.sh (installs \(package))")
        }
    }

    /// The site file with its placeholders replaced by `replacements` (placeholder directive,
    /// what replaces it): each must be a directive of the file exactly once, so a change of the
    /// file that the test does not follow fails it instead of testing something else.
    static func site(replacing replacements: [(String, String)]) throws -> String {
        var lines = try String(contentsOf: site, encoding: .utf8).components(separatedBy: "\n")
        for (placeholder, value) in replacements {
            let found = lines.indices.filter {
                !lines[$0].trimmingCharacters(in: .whitespaces).hasPrefix("#") && lines[$0].contains(placeholder)
            }
            try #require(found.count == 1, "deploy/nginx/liveline.conf has \(found.count) directives with `\(placeholder)`, not one")
            lines[found[0]] = lines[found[0]].replacingOccurrences(of: placeholder, with: value)
        }
        return lines.joined(separator: "\n")
    }

    /// nginx's main file for a run in `folder`: its pid file, logs and temporary files there, and
    /// the site inside `http { }`, as Debian's /etc/nginx/nginx.conf includes its sites.
    static func mainFile(folder: URL, site: URL) -> String {
        let path = folder.path
        return """
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log notice;
            events { worker_connections 64; }
            http {
                access_log \(path)/access.log;
                client_body_temp_path \(path)/client-body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                include \(site.path);
            }

            """
    }

    /// A self-signed P-256 certificate for 127.0.0.1 and its key in `folder`, and the base64
    /// SHA-256 of its public key (what chromium's `--ignore-certificate-errors-spki-list` takes).
    static func certificate(in folder: URL) throws -> (certificate: URL, key: URL, spki: String) {
        let (certificate, key, spki) = (
            folder.appendingPathComponent("cert.pem"), folder.appendingPathComponent("key.pem"), folder.appendingPathComponent("spki.der")
        )
        for arguments in [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path,
            ],
            ["pkey", "-in", key.path, "-pubout", "-outform", "DER", "-out", spki.path],
        ] {
            let run = try ChildProcess.run(openssl, arguments, timeout: 30)
            try #require(
                run.termination == .exited(0), "openssl \(arguments[0]) \(run.termination): \(String(decoding: run.errors, as: UTF8.self))")
        }
        let publicKey = try #require(FileManager.default.contents(atPath: spki.path), "openssl wrote no \(spki.path)")
        return (certificate, key, Data(SHA256.digest(publicKey)).base64EncodedString())
    }

    /// What nginx wrote into its error log and on its standard error (before it read its
    /// configuration), for a failure's message.
    static func errorLog(_ folder: URL) -> String {
        ["error.log", "stderr.log"].map { name in
            let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? "(none)"
            return "\(name): \(text.suffix(3000))"
        }.joined(separator: "\n")
    }

    /// The protocols a browser may speak to nginx, as the access log names them.
    static let protocols = ["HTTP/2.0", "HTTP/1.1"]

    @Test(arguments: protocols)
    func throughTheCommittedNginxSiteAPersonSignsInWithASecureCookieAndAPageFollowsAChangeLive(_ browserProtocol: String) async throws {
        let python = try DashboardBrowserTests.requireTools()
        try Self.requireProxyTools()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key, spki) = try Self.certificate(in: folder)

        // nginx's two ports, held until nginx starts: below the range port 0 draws from, so no
        // server another test starts meanwhile takes them.
        let http = try DeadPort.outsideEphemeralRange()
        let https = try DeadPort.outsideEphemeralRange()
        let publicURL = "https://127.0.0.1:\(https.port)"
        let server = try DashboardServer(.live) { $0.publicURL = URL(string: publicURL) }
        defer { server.stop() }
        #expect(try server.putTrip("trip:s5", stop: "Hauptbahnhof").status == 201)

        let site = folder.appendingPathComponent("liveline.conf")
        try Self.site(replacing: [
            ("server 127.0.0.1:8080;", "server 127.0.0.1:\(try server.port);"),
            ("listen 80;", "listen 127.0.0.1:\(http.port);"),
            ("listen 443 ssl http2;", "listen 127.0.0.1:\(https.port) ssl http2;"),
            ("/etc/ssl/liveline/fullchain.pem", certificate.path),
            ("/etc/ssl/liveline/privkey.pem", key.path),
        ]).write(to: site, atomically: true, encoding: .utf8)
        let main = folder.appendingPathComponent("nginx.conf")
        try Self.mainFile(folder: folder, site: site).write(to: main, atomically: true, encoding: .utf8)
        http.close()
        https.close()
        let proxy = try ChildProcess(
            Self.nginx, ["-p", folder.path, "-c", main.path, "-g", "daemon off;"],
            standardError: .file(folder.appendingPathComponent("stderr.log").path))
        defer {
            proxy.terminate()
            if proxy.wait(timeout: 10) == nil { proxy.sendToGroup(SIGKILL) }
        }

        // Plain HTTP leads to https: nginx is up once it answers so.
        let redirected = await eventually {
            guard proxy.isRunning else { return true }
            return (try? TestHTTPConnection(port: http.port).request("GET", "/dashboard/"))?.status == 301
        }
        try #require(
            redirected && proxy.isRunning,
            "nginx did not start (\(proxy.termination.map(String.init(describing:)) ?? "running")):\n\(Self.errorLog(folder))")
        let redirect = try TestHTTPConnection(port: http.port).request("GET", "/dashboard/?x=1")
        #expect(
            redirect.status == 301 && redirect.headers["location"] == "https://127.0.0.1/dashboard/?x=1", "\(redirect.status) \(redirect.headers)")

        // The link the server prints points at nginx.
        let link = server.app.dashboardSignInLink()
        #expect(link.hasPrefix("\(publicURL)/dashboard/sign-in?once="), "\(link)")
        let started = Date()
        let (script, artifacts, adminKey) = (Self.script.path, DashboardBrowserTests.artifacts.path, DashboardServer.adminKey)
        let run = try await offThePool {
            try ChildProcess.run(
                python,
                [script, link, certificate.path, spki, adminKey, artifacts, "--trip", "trip:s5"] + (browserProtocol == "HTTP/1.1" ? ["--http1"] : []),
                timeout: 90)
        }
        let output = String(decoding: run.output, as: UTF8.self)
        let errors = String(decoding: run.errors, as: UTF8.self)
        try #require(
            run.termination == .exited(0),
            "reverse_proxy.py \(run.termination):\n\(output)\n\(errors.suffix(4000))\nnginx's error log:\n\(Self.errorLog(folder))")
        print("reverse_proxy.py (\(browserProtocol)) took \(String(format: "%.1f", Date().timeIntervalSince(started))) s:\n\(output)")

        // The script's PUT made rev 2 and, like the page's stream, went through nginx (a stream is
        // logged when the browser closes it); nginx logged no one-time sign-in token.
        #expect(try server.app.engine.context(key: "trip:s5")?.rev == 2)
        let accessLog = folder.appendingPathComponent("access.log")
        let logged = await eventually {
            let log = (try? String(contentsOf: accessLog, encoding: .utf8)) ?? ""
            return log.contains("\"GET /dashboard/events?page=activity&key=trip%3As5 \(browserProtocol)\" 200")
        }
        #expect(logged, "nginx's access log has no stream of the activity's page over \(browserProtocol)")
        let log = try String(contentsOf: accessLog, encoding: .utf8)
        #expect(!log.contains("once="), "nginx logged a one-time sign-in link:\n\(log)")
        #expect(log.contains("\"PUT /v1/contexts/trip:s5 HTTP/1.1\" 200"), "nginx logged no PUT of the script's:\n\(log)")

        // Guessing at the sign-in form: nginx answers 429 itself after its burst (Liveline, which
        // sees one address behind it, is not the one limiting).
        let statuses = try (1...16).map { _ in try Self.postSignIn(port: https.port, certificate: certificate) }
        #expect(statuses.first?.status == 403, "Liveline answers a form without its CSRF token: \(statuses.map(\.status))")
        let limited = statuses.first { $0.status == 429 }
        #expect(limited?.body.contains("nginx") == true, "nginx limits sign-in attempts: \(statuses.map(\.status))")
    }

    /// Status and body of a POST of a wrong admin key to nginx's sign-in form, over https.
    static func postSignIn(port: Int, certificate: URL) throws -> (status: Int, body: String) {
        let run = try ChildProcess.run(
            "/usr/bin/curl",
            [
                "-s", "--cacert", certificate.path, "-X", "POST", "-d", "key=wrong", "-w", "\n%{http_code}",
                "https://127.0.0.1:\(port)/dashboard/sign-in",
            ], timeout: 20)
        let text = String(decoding: run.output, as: UTF8.self)
        let status = text.split(separator: "\n").last.flatMap { Int($0) } ?? 0
        return (status, text)
    }
}
