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
    /// Stored versions by type and version, parsed (a stored version never changes), or nil for
    /// one that no longer parses (told once).
    private let parsed = Mutex<[String: AnyContract?]>([:])

    init(store: Store, registry: ContractRegistry, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.registry = registry
        self.clock = clock
        self.logger = logger
        registry.loaded.setSource { [weak self] in try? self?.currentContracts() }
        // Another instance sharing the database may have added a contract or a version. (The
        // catalog only: a handler holding the store would keep the database open for good.)
        store.database.onChangesElsewhere { [loaded = registry.loaded] in loaded.markStale() }
    }

    /// The latest stored version of each type that parses, parsed: the list of latest version
    /// numbers is read (small), and a version's document only when it was not read before.
    func currentContracts() throws -> [AnyContract] {
        try store.contracts.latestVersions().sorted { $0.key < $1.key }.compactMap { type, latest in
            if let known = parsed.withLock({ $0[Self.key(type, latest)] }), let known { return known }
            // The latest does not parse (a newer Liveline wrote it, say): the newest one that does.
            for record in try store.contracts.versions(of: type).reversed() {
                if let contract = contract(of: record) { return contract }
            }
            return nil
        }
    }

    /// The stored `record`, parsed; nil, told once in the log, when it no longer parses.
    func contract(of record: ContractVersionRecord) -> AnyContract? {
        let key = Self.key(record.typeName, record.version)
        if let known = parsed.withLock({ $0[key] }) { return known }
        do {
            let contract = AnyContract(file: try ContractFile.parse(Data(record.document.utf8)), origin: Self.origin(of: record))
            parsed.withLock { $0[key] = contract }
            return contract
        } catch {
            parsed.withLock { $0[key] = .some(nil) }
            logger.record(EngineEvent(.error, .contractRefused, message: "stored version \(record.version) of \(record.typeName): \(error)"))
            return nil
        }
    }

    static func key(_ type: String, _ version: Int) -> String { type + "@" + String(version) }

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

extension ContractLibrary {
    /// Refuses a token registered with a `fingerprint` that is no stored version of the loaded type
    /// `typeName`: the app says it was built with a shape of the type this server never had
    /// (``EngineError/Code/payloadRefused``).
    func requireVersion(of typeName: String, fingerprint: String, in transaction: any SQLTransaction) throws {
        // A compiled-in type has the one version this server was built with; an app built with an
        // older shape of it keeps its tokens (the dashboard counts it as an unknown version).
        if registry.isBuiltIn(typeName) { return }
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
