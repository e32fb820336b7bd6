import Foundation
import LivelineStore
import LivelineTestSupport
import Testing

/// `--database-url` / `LIVELINE_DATABASE_URL` on a real PostgreSQL (`TestPostgres`): the commands
/// use it, and every bad value is one clear line naming the problem, never the password, exit 1.
@Suite struct DatabaseURLTests {
    @Test func usersAddAndListWorkOnThePostgreSQLDatabase() throws {
        let (url, drop) = try TestPostgres.freshURL()
        defer { drop() }
        let add = CapturedOutput()
        #expect(add.run(["users", "add", "--household", "Fisch", "--name", "Dennis", "--database-url", url]) == 0, "\(add.standardError)")
        let list = CapturedOutput()
        list.environment = ["LIVELINE_DATABASE_URL": url]
        #expect(list.run(["users", "list", "--json"]) == 0, "\(list.standardError)")
        let users = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
        #expect(users.map { $0["name"] as? String } == ["Dennis"])
    }

    @Test func aBadURLAWrongPasswordAnUnreachableServerAndANewerDatabaseAreOneClearLineEach() throws {
        let (url, drop) = try TestPostgres.freshURL()
        defer { drop() }
        let port = try #require(URLComponents(string: url)?.port)
        let dead = try DeadPort()
        func refused(_ databaseURL: String) -> String {
            let output = CapturedOutput()
            let code = output.run(["users", "list", "--database-url", databaseURL])
            #expect(code == 1, "\(output.standardError)")
            #expect(output.standardOutput.isEmpty)
            return output.standardError
        }
        let malformed = refused("postgresql://liveline:hunter2-secret@[::1")
        #expect(malformed.contains("the PostgreSQL URL is not valid") && !malformed.contains("hunter2-secret"), "\(malformed)")
        // An '@' in the password that was not percent-encoded, and one that was.
        for secret in ["hunter2@secret", "hunter2%40secret"] {
            let message = refused("postgresql://liveline:\(secret)@[::1")
            #expect(message.contains("not valid") && !message.contains("hunter2") && !message.contains("secret@"), "\(message)")
        }
        let wrongPassword = refused("postgresql://liveline:hunter2-secret@127.0.0.1:\(port)/postgres")
        #expect(wrongPassword.contains("password authentication failed") && !wrongPassword.contains("hunter2-secret"), "\(wrongPassword)")
        #expect(wrongPassword.contains("127.0.0.1:\(port)/postgres"))
        let unreachable = refused("postgresql://liveline:hunter2-secret@127.0.0.1:\(dead.port)/postgres")
        #expect(unreachable.contains("could not connect") && unreachable.contains("\(dead.port)") && !unreachable.contains("hunter2-secret"))

        // A database a newer build wrote.
        #expect(CapturedOutput().run(["users", "list", "--database-url", url]) == 0)
        let database = try PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1)
        try database.write { try $0.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)") }
        let newer = refused(url)
        #expect(newer.contains("newer Liveline") && newer.contains("9999") && !newer.contains(TestPostgres.password), "\(newer)")
        for message in [malformed, wrongPassword, unreachable, newer] {
            #expect(message.split(separator: "\n").count == 1, "one line: \(message)")
        }
    }
}
