import Foundation
import LivelineCrypto
import LivelineHTTP2
import LivelinePushWire
import Synchronization

/// The connections of one endpoint: requests go to the least loaded usable connection that
/// accepts the current provider token; a new one opens while all are full (up to the limit) or
/// none is usable (after GOAWAY, `Shutdown`, a drop, a token switch too soon).
final class APNSConnectionPool: Sendable {
    let endpoint: APNSEndpoint
    private let loop: EventLoop
    private let maxConnections: Int
    private let connectTimeout: Double
    private let livenessTimeout: Double
    private let connections = Mutex<[APNSConnection]>([])
    /// Connections taken out of use with requests still in flight: closed once those are
    /// answered (on the next pick) or by ``closeAll()``.
    private let draining = Mutex<[APNSConnection]>([])

    init(endpoint: APNSEndpoint, loop: EventLoop, maxConnections: Int, connectTimeout: Double, livenessTimeout: Double = 0) {
        self.endpoint = endpoint
        self.loop = loop
        self.maxConnections = max(1, maxConnections)
        self.connectTimeout = connectTimeout
        self.livenessTimeout = livenessTimeout
    }

    /// A connection for a request signed with `token`.
    func connection(for token: ProviderToken, now: Date) throws -> APNSConnection {
        closeDrained()
        return try connections.withLock { connections in
            var leaving: [APNSConnection] = []
            connections.removeAll { connection in
                if connection.isUsable { return false }
                if connection.http.status.snapshot.inFlight == 0 { connection.http.close() } else { leaving.append(connection) }
                return true
            }
            let candidates = connections.filter { $0.accepts(token, now: now) }
            // Each connection that can take the token but would need a switch too soon retires.
            for connection in connections where !candidates.contains(where: { $0 === connection }) {
                connection.retire()
                if connection.http.status.snapshot.inFlight > 0 { leaving.append(connection) }
            }
            if !leaving.isEmpty { draining.withLock { $0 += leaving } }
            connections = candidates
            if let best = candidates.min(by: { $0.load < $1.load }), !best.isFull || candidates.count >= maxConnections {
                return best
            }
            let connection = try APNSConnection(
                endpoint: endpoint, loop: loop, connectTimeout: connectTimeout, livenessTimeout: livenessTimeout, now: now)
            connections.append(connection)
            return connection
        }
    }

    /// Connections idle since before `cutoff`, for a PING.
    func idle(since cutoff: Date) -> [APNSConnection] {
        connections.withLock { $0.filter { $0.isUsable && $0.lastUsed < cutoff && $0.http.status.snapshot.inFlight == 0 } }
    }

    /// How many connections are open or opening.
    var count: Int { connections.withLock { $0.count } }

    func closeAll() {
        let all =
            connections.withLock { connections in
                defer { connections = [] }; return connections
            }
            + draining.withLock { draining in
                defer { draining = [] }; return draining
            }
        for connection in all { connection.http.close() }
    }

    /// Closes the draining connections whose requests were all answered.
    private func closeDrained() {
        let done = draining.withLock { draining -> [APNSConnection] in
            let done = draining.filter { $0.http.status.snapshot.inFlight == 0 }
            draining.removeAll { $0.http.status.snapshot.inFlight == 0 }
            return done
        }
        for connection in done { connection.http.close() }
    }
}
