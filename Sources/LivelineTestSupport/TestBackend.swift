import Foundation
import LivelineStore

/// The database the engine, server and end-to-end suites run on: SQLite in the test's folder, or
/// — with `LIVELINE_TEST_BACKEND=postgres` — a schema of its own on the tests' PostgreSQL
/// (``TestPostgres``). `scripts/test.sh` runs those suites once on each backend; the store's own
/// suite runs on both in every run (docs/testing.md).
public enum TestBackend {
    /// Whether this run's suites use PostgreSQL.
    public static var isPostgres: Bool { ProcessInfo.processInfo.environment["LIVELINE_TEST_BACKEND"] == "postgres" }

    /// An empty database for one test.
    public static func database(folder: URL) throws -> any Database {
        guard isPostgres else {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return try SQLiteDatabase(folder: folder)
        }
        return try TestPostgres.freshDatabase().database
    }

    /// ``database(folder:)``, migrated with `features`.
    public static func openStore(folder: URL, features: [FeatureMigrations] = []) throws -> Store {
        guard isPostgres else { return try Store.openSQLite(folder: folder, features: features) }
        return try Store.open(database(folder: folder), features: features)
    }

    /// The URL a server of one test is configured with (a schema of its own), nil with SQLite.
    public static func databaseURL() throws -> String? {
        guard isPostgres else { return nil }
        return try TestPostgres.freshURL().url
    }
}
