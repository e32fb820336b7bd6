import Foundation
import LivelineStore

extension ServerConfiguration {
    /// The configured database, migrated (the core's migrations, then `features`'): PostgreSQL at
    /// ``databaseURL`` with a pool of ``databasePool`` connections, else SQLite in the data
    /// folder. A URL that cannot be read, a server that cannot be reached or refuses the login,
    /// and a database written by a newer build are one `StoreError` each, naming the server —
    /// never the password.
    /// `asServer`: SQLite's server lock is taken before the file is opened (``Store/openSQLite(folder:features:now:asServer:)``).
    public func openStore(features: [FeatureMigrations] = [], asServer: Bool = false) throws -> Store {
        guard let databaseURL else { return try Store.openSQLite(folder: dataDirectory, features: features, asServer: asServer) }
        let settings: PostgresSettings
        do {
            settings = try PostgresSettings(url: databaseURL)
        } catch let error as StoreError {
            throw StoreError(error.code, "the database URL (--database-url, LIVELINE_DATABASE_URL): \(error.message)")
        }
        return try Store.open(PostgresDatabase(settings: settings, poolSize: databasePool), features: features)
    }
}
