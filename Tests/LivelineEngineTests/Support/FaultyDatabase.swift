import Foundation
import LivelineStore
import Synchronization

/// A ``Database`` that fails on purpose: once armed, the next write transactions throw `error`
/// in place of their `failAt`-th statement (statements before it ran, so the body is killed
/// halfway and the transaction rolls back). Reads and unarmed writes go through untouched.
struct FaultyDatabase: Database {
    let inner: any Database
    let faults: Faults

    /// What the next write transactions do, and what the last armed one ran.
    final class Faults: Sendable {
        private struct Arm {
            var failAt: Int?
            var error: StoreError
            var times: Int
        }
        private let arm = Mutex<Arm?>(nil)
        private let counted = Mutex<[Int]>([])

        /// The next `times` write transactions fail at their `failAt`-th statement (nil: they
        /// only count their statements).
        func arm(failAt: Int?, error: StoreError = StoreError(.io, "disk I/O error (injected)"), times: Int = 1) {
            arm.withLock { $0 = Arm(failAt: failAt, error: error, times: times) }
        }

        func disarm() { arm.withLock { $0 = nil } }

        private let readArm = Mutex<(sql: String, times: Int)?>(nil)

        /// The next `times` read queries whose SQL contains `sql` throw a transient error.
        func failReads(of sql: String, times: Int = 1) { readArm.withLock { $0 = (sql, times) } }

        /// Whether a read query of `sql` fails now (and counts it).
        fileprivate func readFails(_ sql: String) -> Bool {
            readArm.withLock { arm in
                guard let current = arm, sql.contains(current.sql) else { return false }
                arm = current.times > 1 ? (current.sql, current.times - 1) : nil
                return true
            }
        }

        /// Statements run by each armed transaction so far (the failing one included), oldest first.
        var statements: [Int] { counted.withLock { $0 } }

        fileprivate func take() -> (failAt: Int?, error: StoreError)? {
            arm.withLock { arm in
                guard let current = arm else { return nil }
                arm = current.times > 1 ? Arm(failAt: current.failAt, error: current.error, times: current.times - 1) : nil
                return (current.failAt, current.error)
            }
        }

        fileprivate func report(_ statements: Int) { counted.withLock { $0.append(statements) } }
    }

    var dialect: SQLDialect { inner.dialect }
    var location: String { inner.location }
    func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try inner.read { transaction in try body(ReadFailing(inner: transaction, faults: faults)) }
    }
    func changeVersion() throws -> UInt64? { try inner.changeVersion() }
    func changeVersionOfEveryWriter() throws -> UInt64? { try inner.changeVersionOfEveryWriter() }
    func now() -> Date { inner.now() }
    var isShared: Bool { inner.isShared }
    @discardableResult func close() -> Bool { inner.close() }

    func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        guard let (failAt, error) = faults.take() else { return try inner.write(body) }
        return try inner.write { transaction in
            let counting = Counting(inner: transaction, failAt: failAt, error: error)
            defer { faults.report(counting.count) }
            return try body(counting)
        }
    }

    /// A read transaction whose queries fail when ``Faults/failReads(of:times:)`` says so.
    private final class ReadFailing: SQLTransaction {
        let inner: any SQLTransaction
        let faults: Faults

        init(inner: any SQLTransaction, faults: Faults) {
            self.inner = inner
            self.faults = faults
        }

        func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int { try inner.execute(sql, parameters) }

        func query(_ sql: String, _ parameters: [SQLValue]) throws -> [Row] {
            if faults.readFails(sql) { throw StoreError(.busy, "database is locked (injected)") }
            return try inner.query(sql, parameters)
        }

        func executeScript(_ sql: String) throws { try inner.executeScript(sql) }

        func holdLock(_ name: String, shared: Bool, patient: Bool) throws { try inner.holdLock(name, shared: shared, patient: patient) }
    }

    /// The transaction, statement by statement.
    private final class Counting: SQLTransaction {
        let inner: any SQLTransaction
        let failAt: Int?
        let error: StoreError
        var count = 0

        init(inner: any SQLTransaction, failAt: Int?, error: StoreError) {
            self.inner = inner
            self.failAt = failAt
            self.error = error
        }

        private func next() throws {
            count += 1
            if count == failAt { throw error }
        }

        func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
            try next()
            return try inner.execute(sql, parameters)
        }

        func query(_ sql: String, _ parameters: [SQLValue]) throws -> [Row] {
            try next()
            return try inner.query(sql, parameters)
        }

        func executeScript(_ sql: String) throws {
            try next()
            try inner.executeScript(sql)
        }

        func holdLock(_ name: String, shared: Bool, patient: Bool) throws {
            try next()
            try inner.holdLock(name, shared: shared, patient: patient)
        }
    }
}
