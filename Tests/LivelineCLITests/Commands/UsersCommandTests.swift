import Foundation
import LivelineCrypto
import LivelineStore
import Testing

@Suite struct UsersCommandTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("liveline-cli-\(UUID().uuidString)")
    }

    @Test func addPrintsIdsAndATokenThatIsStoredOnlyAsAHash() throws {
        let data = Self.folder()
        defer { try? FileManager.default.removeItem(at: data) }
        let output = CapturedOutput()
        let code = output.run([
            "users", "add", "--household", "Fisch", "--name", "Dennis", "--tint", "azure", "--emoji", "🐟", "--locale", "en", "--data", data.path,
        ])
        #expect(code == 0, "\(output.standardError)")
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        #expect(Set(printed.keys) == ["userId", "householdId", "token"])
        let token = try #require(printed["token"] as? String)
        let store = try Store.openSQLite(folder: data)
        let session = try #require(try store.accounts.session(tokenHash: SHA256.hex(token)))
        #expect(session.user.id.rawValue == printed["userId"] as? Int)
        #expect(session.user.locale == "en")
        let file = try String(contentsOf: data.appendingPathComponent(SQLiteDatabase.fileName), encoding: .isoLatin1)
        #expect(!file.contains(token))
    }

    @Test func revokeEndsAUsersSessionsOrOneTokensAndSaysWhenThereWasNone() throws {
        let data = Self.folder()
        defer { try? FileManager.default.removeItem(at: data) }
        func add(_ name: String) throws -> (userID: Int, token: String) {
            let output = CapturedOutput()
            #expect(output.run(["users", "add", "--household", "Fisch", "--name", name, "--data", data.path]) == 0)
            let printed = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
            return (try #require(printed["userId"] as? Int), try #require(printed["token"] as? String))
        }
        let dennis = try add("Dennis")
        let jaqueline = try add("Jaqueline")
        let store = try Store.openSQLite(folder: data)
        defer { store.database.close() }
        // One token.
        let one = CapturedOutput()
        #expect(one.run(["users", "revoke", "--token", dennis.token, "--data", data.path]) == 0, "\(one.standardError)")
        #expect(one.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"revoked":1}"#)
        #expect(try store.accounts.session(tokenHash: SHA256.hex(dennis.token)) == nil)
        #expect(try store.accounts.session(tokenHash: SHA256.hex(jaqueline.token)) != nil)
        // Again: nothing to end, exit 1 and why.
        let again = CapturedOutput()
        #expect(again.run(["users", "revoke", "--token", dennis.token, "--data", data.path]) == 1)
        #expect(again.standardError.contains("no session has that token"))
        // Every session of a user.
        let all = CapturedOutput()
        #expect(all.run(["users", "revoke", "--user", String(jaqueline.userID), "--data", data.path]) == 0)
        #expect(all.standardOutput.contains(#"{"revoked":1}"#))
        #expect(try store.accounts.session(tokenHash: SHA256.hex(jaqueline.token)) == nil)
        // Bad input: a clear error, nothing changed.
        let unknown = CapturedOutput()
        #expect(unknown.run(["users", "revoke", "--user", "99", "--data", data.path]) == 1)
        #expect(unknown.standardError.contains("there is no user 99"))
        for arguments in [["--user", "x"], ["--user", "1", "--token", "t"], []] {
            let bad = CapturedOutput()
            #expect(bad.run(["users", "revoke"] + arguments + ["--data", data.path]) == 2, "\(arguments)")
        }
    }

    @Test func aSecondMemberJoinsTheHouseholdAndSpeaksItsLanguage() throws {
        let data = Self.folder()
        defer { try? FileManager.default.removeItem(at: data) }
        #expect(CapturedOutput().run(["users", "add", "--household", "Fisch", "--name", "Dennis", "--locale", "en", "--data", data.path]) == 0)
        let second = CapturedOutput()
        #expect(second.run(["users", "add", "--household", "Fisch", "--name", "Jaqueline", "--data", data.path]) == 0)
        let list = CapturedOutput()
        #expect(list.run(["users", "list", "--json", "--data", data.path]) == 0)
        let users = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
        #expect(users.count == 2)
        #expect(Set(users.compactMap { $0["householdId"] as? Int }).count == 1)
        #expect(users.allSatisfy { $0["locale"] as? String == "en" })
        let table = CapturedOutput()
        #expect(table.run(["users", "list", "--data", data.path]) == 0)
        #expect(table.standardOutput.contains("Jaqueline"))
    }

    @Test func badArgumentsExitWith2AndSayWhatIsWrong() throws {
        let data = Self.folder()
        defer { try? FileManager.default.removeItem(at: data) }
        let cases: [([String], String)] = [
            (["users", "add", "--name", "Dennis"], "--household is required"),
            (["users", "add", "--household", "F", "--name", "D", "--locale", "fr"], "--locale must be de or en"),
            (["users", "add", "--household", "F", "--name", "D", "--tint", "#ff0000"], "--tint"),
            (["users", "add", "--household", "F", "--name", "D", "--colour", "red"], "unknown option --colour"),
            (["users", "remove"], "unknown subcommand"),
        ]
        for (arguments, message) in cases {
            let output = CapturedOutput()
            #expect(output.run(arguments + ["--data", data.path]) == 2, "\(arguments)")
            #expect(output.standardError.contains(message), "\(arguments): \(output.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent(SQLiteDatabase.fileName).path))
    }
}
