internal import CLibPQ
import Foundation

/// A PostgreSQL connection URL (`postgresql://user:password@host:port/dbname?…`, or libpq's
/// `key=value` form), read once by libpq's own parser, with the server's name for messages and
/// the password kept out of every message (docs/operations.md, "Several instances").
///
/// Related PostgreSQL documentation: "libpq — Connection Strings", `PQconninfoParse`.
public struct PostgresSettings: Sendable {
    /// What libpq connects with: every parsed keyword, plus Liveline's defaults where the URL
    /// sets none (`connect_timeout=10`, `application_name=liveline`, keepalives,
    /// `tcp_user_timeout=15000`).
    let conninfo: String
    /// `host:port/dbname` (never the password), for messages.
    public let location: String
    /// How long one statement may run on the server before it is cancelled.
    public let statementTimeoutMilliseconds: Int
    private let password: String?

    /// Parses `url`; throws `.invalidArgument` naming what is wrong (never the password).
    /// `searchPath` sets the schema used (tests use one schema each).
    public init(url: String, statementTimeoutMilliseconds: Int = 30_000, searchPath: String? = nil) throws {
        // libpq ends the password at its first '@': the rest would become the host, and show in
        // every message naming the server.
        if let scheme = url.range(of: "://") {
            let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
            if authority.filter({ $0 == "@" }).count > 1 {
                throw StoreError(
                    .invalidArgument, "the PostgreSQL URL is not valid: its user or password holds an '@'; write it as %40")
            }
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            let message = error.map { String(cString: $0) } ?? "out of memory"
            if let error { PQfreemem(error) }
            throw StoreError(.invalidArgument, "the PostgreSQL URL is not valid: \(Self.redacted(message, in: url))")
        }
        defer { PQconninfoFree(options) }
        var values: [(String, String)] = []
        var index = 0
        while let keyword = options[index].keyword {
            if let value = options[index].val { values.append((String(cString: keyword), String(cString: value))) }
            index += 1
        }
        func value(_ key: String) -> String? { values.first { $0.0 == key }?.1 }
        if value("connect_timeout") == nil { values.append(("connect_timeout", "10")) }
        if value("application_name") == nil { values.append(("application_name", "liveline")) }
        // A connection whose statement or commit is unanswered (a partition while it waits) ends
        // within 15 s (`tcp_user_timeout`, Linux's TCP_USER_TIMEOUT: data unacknowledged that long
        // ends the connection), not after the kernel's many minutes of retransmitting. One whose
        // statement was acknowledged but whose answer never comes (a partition while the server
        // works or waits for a lock) has nothing unacknowledged: keepalives probe it after 5 s of
        // silence, and TCP_USER_TIMEOUT ends it when they go unanswered for 15 s, so about 20 s.
        // With a connection made again (`connect_timeout`, 10 s) a request learns it well before
        // the HTTP server's 30 s connection timeout would drop it without an answer.
        for (key, fallback) in [
            ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
            ("tcp_user_timeout", "15000"),
        ]
        where value(key) == nil {
            values.append((key, fallback))
        }
        if let searchPath {
            let others = value("options").map { $0 + " " } ?? ""
            values.removeAll { $0.0 == "options" }
            values.append(("options", others + "-csearch_path=\(searchPath)"))
        }
        password = value("password").flatMap { $0.isEmpty ? nil : $0 }
        conninfo = values.map { "\($0.0)='\(Self.escaped($0.1))'" }.joined(separator: " ")
        let host = value("host") ?? value("hostaddr") ?? "localhost"
        location = "\(host):\(value("port") ?? "5432")/\(value("dbname") ?? value("user") ?? "postgres")"
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
    }

    /// `text` with the password replaced by `***`.
    func redact(_ text: String) -> String {
        guard let password else { return text }
        return text.replacingOccurrences(of: password, with: "***")
    }

    /// A parse error of `url` without its password: libpq quotes parts of the URL it could not read.
    private static func redacted(_ message: String, in url: String) -> String {
        var text = PostgresConnection.oneLine(message)
        // postgresql://user:PASSWORD@host — whatever stands between the first ':' after '//' and
        // the last '@' before the query (a password may hold an '@' its writer did not encode),
        // as written and percent-decoded.
        if let scheme = url.range(of: "://") {
            let authority = url[scheme.upperBound...].prefix { $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                let secret = String(authority[authority.index(after: colon)..<at])
                for form in [secret, secret.removingPercentEncoding].compactMap({ $0 }) where !form.isEmpty {
                    text = text.replacingOccurrences(of: form, with: "***")
                }
            }
        }
        return text
    }

    private static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
