import Foundation
import LivelineLog
import LivelineModel
import LivelineStore
import Synchronization

/// The contracts an app brings at run time (`docs/contracts.md`, "Bring your own Live Activity"):
/// every version stored in the database, so every instance sharing it knows them; the latest of
/// each type in the registry, beside the compiled-in ones.
///
/// A new version is refused when an app installed in the field would drop its pushes (the
/// versions its tokens were registered with; ``ContractCompatibility``), unless forced.
public final class ContractLibrary: Sendable {
    let store: Store
    let registry: ContractRegistry
    let clock: @Sendable () -> Date
    let logger: Logger
    /// Parsed versions by fingerprint (a stored version never changes shape).
    private let parsed = Mutex<[String: AnyContract]>([:])
    /// The fingerprints installed per type, as of a count of the token registry's changes.
    private let installedByType = Mutex<[String: (changes: UInt64, fingerprints: Set<String>)]>([:])

    init(store: Store, registry: ContractRegistry, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.registry = registry
        self.clock = clock
        self.logger = logger
        registry.loaded.setSource { [self] in try? currentContracts() }
        // Another instance sharing the database may have added a contract or a version. (The
        // catalog only: a handler holding the store would keep the database open for good.)
        store.database.onChangesElsewhere { [loaded = registry.loaded] in loaded.markStale() }
    }

    /// The latest stored version of each type, parsed.
    func currentContracts() throws -> [AnyContract] {
        try store.contracts.current().compactMap(contract(of:))
    }

    /// The stored `record`, parsed (nil, logged, when it no longer parses: a newer Liveline wrote it).
    func contract(of record: ContractVersionRecord) -> AnyContract? {
        let key = record.typeName + "@" + record.fingerprint
        if let known = parsed.withLock({ $0[key] }) { return known }
        do {
            let file = try ContractFile.parse(Data(record.document.utf8))
            let contract = AnyContract(file: file, origin: Self.origin(of: record))
            parsed.withLock { $0[key] = contract }
            return contract
        } catch {
            logger.record(EngineEvent(.error, .contractRefused, message: "stored version \(record.version) of \(record.typeName): \(error)"))
            return nil
        }
    }

    /// The fingerprints the devices with tokens of `typeName` said, read again only after the token
    /// registry changed (its count is read before the registry, so a change committing meanwhile
    /// makes the next call read again).
    func installedFingerprints(of typeName: String) throws -> Set<String> {
        let changes = store.tokens.changes.value
        if let cached = installedByType.withLock({ $0[typeName] }), cached.changes == changes { return cached.fingerprints }
        let fingerprints = Set(try store.contracts.installed(typeName).compactMap(\.fingerprint))
        installedByType.withLock { $0[typeName] = (changes, fingerprints) }
        return fingerprints
    }

    /// Every stored version of `typeName`, oldest first.
    public func versions(of typeName: String) throws -> [ContractVersionRecord] {
        try store.contracts.versions(of: typeName)
    }

    /// The versions of `typeName` installed in the field, with their devices.
    public func installed(_ typeName: String) throws -> [InstalledContractVersion] {
        try store.contracts.installed(typeName)
    }

    /// The stored version of `typeName` with `fingerprint`, parsed.
    public func version(of typeName: String, fingerprint: String) throws -> AnyContract? {
        try store.contracts.version(of: typeName, fingerprint: fingerprint).flatMap(contract(of:))
    }
}

/// What storing a contract version did.
public struct ContractPutResult: Sendable {
    public var typeName: String
    public var version: Int
    public var fingerprint: String
    /// False when that version was stored already with this shape.
    public var created: Bool
    /// The compatibility report against the versions installed (breaking changes only when forced).
    public var changes: [ContractChange]
}

extension ContractLibrary {
    /// Refuses a token registered with a `fingerprint` that is no version of `typeName`: the app
    /// says it was built with a shape of the type this server never had (``EngineError/Code/payloadRefused``).
    func requireVersion(of typeName: String, fingerprint: String, in transaction: any SQLTransaction) throws {
        if registry.isBuiltIn(typeName), let contract = registry.contract(named: typeName) {
            guard contract.fingerprint != fingerprint else { return }
            throw EngineError(
                .payloadRefused,
                "contract_fingerprint '\(fingerprint)' is not \(typeName) as this server has it (fingerprint \(contract.fingerprint)): the app was built with another shape of the type",
                field: "contract_fingerprint")
        }
        let versions = try store.contracts.versions(of: typeName, in: transaction)
        guard !versions.contains(where: { $0.fingerprint == fingerprint }) else { return }
        let known = versions.map { "version \($0.version) (\($0.fingerprint))" }.joined(separator: ", ")
        throw EngineError(
            .payloadRefused,
            "contract_fingerprint '\(fingerprint)' matches no version of \(typeName); stored: \(known.isEmpty ? "none" : known). Add the app's contract first (PUT /v1/contracts/\(typeName))",
            field: "contract_fingerprint")
    }
}

extension ContractLibrary {
    /// Refuses a content state that a version of the contract installed on the devices of
    /// `contextKey` (their update tokens' fingerprints) cannot decode: the push would never reach
    /// those phones (``EngineError/Code/payloadRefused``, naming the version and the key). A
    /// compiled-in contract has one version.
    func checkInstalled(contextKey: String, contract: AnyContract, state: JSONValue, now: Date) throws {
        guard contract.origin != .swiftType else { return }
        let current = contract.fingerprint
        // Most of the time every device has the current version: then no context needs a look.
        guard try !installedFingerprints(of: contract.typeName).subtracting([current]).isEmpty else { return }
        let others = try store.contracts.installedFingerprints(contextKey: contextKey).compactMap { $0 }.filter { $0 != current }
        guard !others.isEmpty else { return }
        let json = state.compactJSON
        for fingerprint in others.sorted() {
            guard let installed = try version(of: contract.typeName, fingerprint: fingerprint) else { continue }
            guard let problem = installed.checkContentState(json: json, now: now).first(where: { $0.severity == .error }) else { continue }
            let field = problem.keyPath.isEmpty ? "contentState" : "contentState." + problem.keyPath
            throw EngineError(
                .payloadRefused,
                "version \(installed.version) of \(contract.typeName), installed on devices following \(contextKey), cannot decode this state: \(field) \(problem.message)",
                field: field)
        }
    }
}
