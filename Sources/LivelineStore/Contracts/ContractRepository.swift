import Foundation

/// The versions of the contracts loaded at run time (`contract_versions`), and which of them the
/// apps in the field were built with (`push_tokens.contract_fingerprint`).
///
/// Versions are kept for good: a phone names its build's version by fingerprint long after a
/// newer one came (`docs/contracts.md`, "Bring your own Live Activity").
public struct ContractRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// The latest version number of each type (a small read: no documents).
    public func latestVersions() throws -> [String: Int] {
        try database.read { transaction in
            var latest: [String: Int] = [:]
            for row in try transaction.query("SELECT type_name, MAX(version) AS version FROM contract_versions GROUP BY type_name") {
                latest[try row.string("type_name")] = try row.int("version")
            }
            return latest
        }
    }

    /// Every version of `typeName`, oldest first.
    public func versions(of typeName: String) throws -> [ContractVersionRecord] {
        try database.read { transaction in try versions(of: typeName, in: transaction) }
    }

    /// ``versions(of:)`` inside the caller's transaction.
    public func versions(of typeName: String, in transaction: any SQLTransaction) throws -> [ContractVersionRecord] {
        try transaction.query(
            "SELECT \(ContractVersionRecord.columns) FROM contract_versions WHERE type_name = $1 ORDER BY version", [.text(typeName)]
        ).map(ContractVersionRecord.init(row:))
    }

    /// The version of `typeName` with `fingerprint`, if one is stored.
    public func version(of typeName: String, fingerprint: String) throws -> ContractVersionRecord? {
        try database.read { transaction in
            try transaction.queryOne(
                "SELECT \(ContractVersionRecord.columns) FROM contract_versions WHERE type_name = $1 AND fingerprint = $2",
                [.text(typeName), .text(fingerprint)]
            ).map(ContractVersionRecord.init(row:))
        }
    }

    /// Runs `body` in a write transaction that holds the lock of `typeName`'s versions: two
    /// instances adding a version of one type at once take turns, each deciding on what the other
    /// committed.
    public func withVersionsLocked<T>(of typeName: String, _ body: (any SQLTransaction) throws -> T) throws -> T {
        try database.write { transaction in
            try transaction.holdLock("contract_versions:" + typeName)
            return try body(transaction)
        }
    }

    /// Stores `record` in the caller's transaction (``withVersionsLocked(of:_:)``).
    public func insert(_ record: ContractVersionRecord, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            "INSERT INTO contract_versions (\(ContractVersionRecord.columns)) VALUES ($1, $2, $3, $4, $5, $6)",
            [
                .text(record.typeName), SQLValue(record.version), .text(record.fingerprint), .text(record.document), .text(record.origin),
                SQLValue(record.createdAt),
            ])
    }

    /// The versions of `typeName` installed on devices with an active push-to-start or update
    /// token of it, with their device counts, most devices first.
    public func installed(_ typeName: String) throws -> [InstalledContractVersion] {
        try database.read { transaction in try installed(typeName, in: transaction) }
    }

    /// ``installed(_:)`` inside the caller's transaction.
    public func installed(_ typeName: String, in transaction: any SQLTransaction) throws -> [InstalledContractVersion] {
        // An update token names its context, not its type: the type is the context's.
        try transaction.query(
            """
            SELECT t.contract_fingerprint AS fingerprint, COUNT(DISTINCT t.device_id) AS devices
            FROM push_tokens AS t LEFT JOIN contexts AS c ON c.key = t.context_key
            WHERE t.status = 'active' AND t.kind IN ('la-pushToStart', 'la-update')
                AND COALESCE(t.attributes_type, c.activity_type) = $1
            GROUP BY t.contract_fingerprint
            ORDER BY devices DESC, fingerprint
            """, [.text(typeName)]
        ).map { row in InstalledContractVersion(fingerprint: try row.optionalString("fingerprint"), devices: try row.int("devices")) }
    }

    /// The fingerprints the apps of the active update tokens of `contextKey` were built with
    /// (nil among them: an app that did not say).
    public func installedFingerprints(contextKey: String) throws -> Set<String?> {
        try database.read { transaction in
            Set(
                try transaction.query(
                    """
                    SELECT DISTINCT contract_fingerprint AS fingerprint FROM push_tokens
                    WHERE context_key = $1 AND kind = 'la-update' AND status = 'active'
                    """, [.text(contextKey)]
                ).map { try $0.optionalString("fingerprint") })
        }
    }
}
