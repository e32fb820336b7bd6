import Foundation

/// The contracts a server loads at run time (a folder, the API), by name, shared by every copy
/// of a ``ContractRegistry``.
///
/// Contracts are never removed and their versions only go up, so what the catalog holds only
/// moves forward: a read of the source, or an ``add(_:)``, replaces a contract only with a newer
/// version of it (a read that began before a newer version was added cannot take it back). A
/// missed name reads the source at once (another instance may have added the type a moment ago);
/// ``markStale()`` reads it again in the background, so a lookup never waits for it.
public final class ContractCatalog: @unchecked Sendable {
    private let lock = NSLock()
    private var byName: [String: AnyContract] = [:]
    private var source: (@Sendable () -> [AnyContract]?)?
    private var changes = 0
    /// A background read is queued and has not begun.
    private var readQueued = false
    private let queue = DispatchQueue(label: "liveline.contract-catalog")

    public init(_ contracts: [AnyContract] = []) {
        contracts.forEach(hold)
    }

    /// The loaded contracts, by name.
    public var contracts: [AnyContract] {
        lock.withLock { byName.values.sorted { $0.typeName < $1.typeName } }
    }

    /// Goes up whenever a contract or a newer version comes (what is made from the list, such as
    /// `/openapi.json`, is made again).
    public var generation: Int { lock.withLock { changes } }

    /// The contract named `name`; on a miss the source is read first.
    public func contract(named name: String) -> AnyContract? {
        let (found, readable) = lock.withLock { (byName[name], source != nil) }
        guard found == nil, readable else { return found }
        refresh()
        return lock.withLock { byName[name] }
    }

    /// Says that the source may hold newer contracts (another instance wrote to the shared
    /// database): it is read again in the background, once however often this is called meanwhile.
    public func markStale() {
        let queueRead = lock.withLock { () -> Bool in
            guard source != nil, !readQueued else { return false }
            readQueued = true
            return true
        }
        guard queueRead else { return }
        queue.async { [weak self] in
            guard let self else { return }
            lock.withLock { readQueued = false }
            refresh()
        }
    }

    /// Sets where the contracts come from (it returns nil when it could not be read: the ones held
    /// stay) and reads it.
    public func setSource(_ source: @escaping @Sendable () -> [AnyContract]?) {
        lock.withLock { self.source = source }
        refresh()
    }

    /// Reads the source now; what it has newer than the contracts held is taken.
    public func refresh() {
        guard let source = lock.withLock({ source }), let fresh = source() else { return }
        lock.withLock { fresh.forEach(holdLocked) }
    }

    /// Takes `contract` when it is newer than the one held of its name (or there is none).
    public func add(_ contract: AnyContract) {
        hold(contract)
    }

    private func hold(_ contract: AnyContract) {
        lock.withLock { holdLocked(contract) }
    }

    private func holdLocked(_ contract: AnyContract) {
        guard (byName[contract.typeName]?.version ?? 0) < contract.version else { return }
        byName[contract.typeName] = contract
        changes += 1
    }
}
