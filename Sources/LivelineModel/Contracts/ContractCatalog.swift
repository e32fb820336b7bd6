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
    /// Another instance may have added a contract or a version since the last read.
    private var stale = false

    public init(_ contracts: [AnyContract] = []) {
        byName = Dictionary(contracts.map { ($0.typeName, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The loaded contracts, by name (read again first after ``markStale()``).
    public var contracts: [AnyContract] {
        if lock.withLock({ stale && source != nil }) { refresh() }
        return lock.withLock { byName.values.sorted { $0.typeName < $1.typeName } }
    }

    /// Goes up whenever a contract or version comes or goes (what is made from the list, such as
    /// `/openapi.json`, is made again).
    public var generation: Int { lock.withLock { changes } }

    /// The contract named `name`; on a miss, or after ``markStale()``, the source is read again first.
    public func contract(named name: String) -> AnyContract? {
        let (found, readAgain) = lock.withLock { (byName[name], source != nil && stale) }
        if let found, !readAgain { return found }
        guard lock.withLock({ source }) != nil else { return found }
        refresh()
        return lock.withLock { byName[name] }
    }

    /// Says that the source may have changed (another instance wrote to the shared database): the
    /// next lookup reads it again.
    public func markStale() {
        lock.withLock { stale = true }
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
        lock.withLock { stale = false }
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
