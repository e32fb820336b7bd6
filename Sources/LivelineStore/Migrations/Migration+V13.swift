extension Migration {
    /// Contracts an app brings at run time (`docs/contracts.md`, "Bring your own Live Activity"):
    /// - `contract_versions`: every version of every loaded contract (from `PUT /v1/contracts` or
    ///   a contract file), kept for good: a phone in the field names the version its build was
    ///   compiled with by its fingerprint, so an old one is still read after a newer one came;
    /// - `push_tokens.contract_fingerprint`: the fingerprint the app registered a token with (the
    ///   type its build was compiled with), so a push is checked against each version installed.
    static let v13 = Migration(
        version: 13, name: "contract versions; the contract a token's app was built with",
        sql: """
            CREATE TABLE contract_versions (
                type_name TEXT NOT NULL,
                version INTEGER NOT NULL,
                fingerprint TEXT NOT NULL,
                document TEXT NOT NULL,
                origin TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (type_name, version),
                UNIQUE (type_name, fingerprint)
            );
            ALTER TABLE push_tokens ADD COLUMN contract_fingerprint TEXT;
            CREATE INDEX push_tokens_contract ON push_tokens (attributes_type, contract_fingerprint) WHERE status = 'active';
            """)
}
