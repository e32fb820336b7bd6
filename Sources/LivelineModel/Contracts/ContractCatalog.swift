import Foundation

/// The contracts a server loads at run time (a folder, the API), by name, shared by every copy
/// of a ``ContractRegistry``.
///
/// When a name is missed it asks its source again (another instance may have added the contract
/// to the shared database a moment ago), so a type added anywhere is known at once.
public final class ContractCatalog: @unchecked Sendable {
    private let lock = NSLock()
    private var byName: [String: AnyContract] = [:]
    private var source: (@Sendable () -> [AnyContract]?)?
    private var changes = 0

    public init(_ contracts: [AnyContract] = []) {
        byName = Dictionary(contracts.map { ($0.typeName, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The loaded contracts, by name.
    public var contracts: [AnyContract] {
        lock.withLock { byName.values.sorted { $0.typeName < $1.typeName } }
    }

    /// Goes up whenever a contract or version comes or goes (what is made from the list, such as
    /// `/openapi.json`, is made again).
    public var generation: Int { lock.withLock { changes } }

    /// The contract named `name`; on a miss the source is read again first.
    public func contract(named name: String) -> AnyContract? {
        if let found = lock.withLock({ byName[name] }) { return found }
        guard lock.withLock({ source }) != nil else { return nil }
        refresh()
        return lock.withLock { byName[name] }
    }

    /// Sets where the contracts come from (nil: it could not be read; the ones held stay) and
    /// reads it.
    public func setSource(_ source: @escaping @Sendable () -> [AnyContract]?) {
        lock.withLock { self.source = source }
        refresh()
    }

    /// Reads the source again: its contracts replace the ones held.
    public func refresh() {
        guard let source = lock.withLock({ source }) else { return }
        guard let fresh = source() else { return }
        let next = Dictionary(fresh.map { ($0.typeName, $0) }, uniquingKeysWith: { _, last in last })
        lock.withLock {
            if next.mapValues(\.version) != byName.mapValues(\.version) { changes += 1 }
            byName = next
        }
    }

    /// Holds `contract` (replacing one of its name) until the next refresh.
    public func add(_ contract: AnyContract) {
        lock.withLock {
            if byName[contract.typeName]?.version != contract.version { changes += 1 }
            byName[contract.typeName] = contract
        }
    }
}
