import Foundation
import LivelineCrypto
import LivelineHTTP2
import Synchronization

/// The connections of one endpoint: requests go to the least loaded usable connection that
/// accepts the current provider token; a new one opens while all are full (up to the limit) or
/// none is usable (after GOAWAY, `Shutdown`, a drop, a token switch too soon).
final class APNSConnectionPool: Sendable {
    let endpoint: APNSEndpoint
    private let loop: EventLoop
    private let maxConnections: Int
    private let connectTimeout: Double
    private let connections = Mutex<[APNSConnection]>([])

    init(endpoint: APNSEndpoint, loop: EventLoop, maxConnections: Int, connectTimeout: Double) {
        self.endpoint = endpoint
        self.loop = loop
        self.maxConnections = max(1, maxConnections)
        self.connectTimeout = connectTimeout
    }

    /// A connection for a request signed with `token`.
    func connection(for token: ProviderToken, now: Date) throws -> APNSConnection {
        try connections.withLock { connections in
            connections.removeAll { connection in
                if connection.isUsable { return false }
                if connection.http.status.snapshot.inFlight == 0 { connection.http.close() }
                return true
            }
            let candidates = connections.filter { $0.accepts(token, now: now) }
            // Each connection that can take the token but would need a switch too soon retires.
            for connection in connections where !candidates.contains(where: { $0 === connection }) { connection.retire() }
            connections = candidates
            if let best = candidates.min(by: { $0.load < $1.load }), !best.isFull || candidates.count >= maxConnections {
                return best
            }
            let connection = try APNSConnection(endpoint: endpoint, loop: loop, connectTimeout: connectTimeout, now: now)
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
        for connection in connections.withLock({ connections in defer { connections = [] }; return connections }) {
            connection.http.close()
        }
    }
}
