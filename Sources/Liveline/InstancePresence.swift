import Foundation
import LivelineLog
import LivelineScheduling
import LivelineStore
import Synchronization

/// This instance's part in rolling upgrades (docs/operations.md, "Upgrading"): on PostgreSQL its
/// row in `liveline_instances` — written at start and every ``InstanceRegistry/heartbeatInterval``
/// seconds, removed at a clean stop — says which versions its build knows; at start and at each
/// beat the contract steps whose older instances are all gone run (``Migrator``). SQLite has one
/// server per file: nothing to record, and the contract steps run at start.
final class InstancePresence: Sendable {
    let id = "instance-" + UUID().uuidString.lowercased()
    let store: Store
    let migrator: Migrator
    let logger: Logger
    private let timer = Mutex<RepeatingTimer?>(nil)

    init(store: Store, migrator: Migrator, logger: Logger) {
        self.store = store
        self.migrator = migrator
        self.logger = logger
    }

    private var shared: Bool { store.database.dialect == .postgres }

    func start() {
        if let ahead = try? migrator.servedAhead(store.database), !ahead.isEmpty {
            logger.warning(
                "schemaAhead",
                [
                    ("schema.ahead", .string(ahead.joined(separator: ", "))),
                    ("message", "the database is one expanding migration ahead of this build: serving on it; upgrade this instance"),
                ])
        }
        beat()
        guard shared else { return }
        timer.withLock { $0 = RepeatingTimer(every: InstanceRegistry.heartbeatInterval) { [self] in beat() } }
    }

    /// Writes this instance's row, then runs the contract steps now due.
    func beat() {
        let now = store.database.now()
        do {
            if shared { try store.instances.heartbeat(id: id, versions: migrator.knownVersions, now: now) }
            for name in try migrator.contractWhenNoOlderInstance(store.database, now: now) {
                logger.info("schemaContracted", [("migration", .string(name)), ("message", "no older instance is left: its contract step ran")])
            }
        } catch {
            logger.warning("instanceHeartbeatFailed", [("error", .string("\(error)"))])
        }
    }

    func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        if shared { try? store.instances.remove(id: id) }
    }
}
