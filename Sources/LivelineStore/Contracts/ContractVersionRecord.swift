import Foundation

/// One stored version of a contract loaded at run time (`contract_versions`).
public struct ContractVersionRecord: Sendable, Hashable {
    public var typeName: String
    public var version: Int
    /// ``LivelineModel/ContractFile/fingerprint``: what the phone's decoder depends on.
    public var fingerprint: String
    /// The contract file, as stored (``LivelineModel/ContractFile/json``).
    public var document: String
    /// `api` or `file:<name>`.
    public var origin: String
    public var createdAt: Date

    public init(typeName: String, version: Int, fingerprint: String, document: String, origin: String, createdAt: Date) {
        self.typeName = typeName
        self.version = version
        self.fingerprint = fingerprint
        self.document = document
        self.origin = origin
        self.createdAt = createdAt
    }

    static let columns = "type_name, version, fingerprint, document, origin, created_at"

    init(row: Row) throws {
        self.init(
            typeName: try row.string("type_name"), version: try row.int("version"), fingerprint: try row.string("fingerprint"),
            document: try row.string("document"), origin: try row.string("origin"), createdAt: try row.date("created_at"))
    }
}
