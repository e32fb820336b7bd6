import CMicroHTTPD
import Synchronization

/// A Server-Sent Events stream: a handler returns `HTTPResponse.events(stream)`, then any thread
/// may `send` events until it calls `close()` or the client goes away (`isOpen` turns false).
///
/// While nothing is queued the connection is suspended, so an idle stream costs no thread. A
/// suspended connection is not watched, so a client that left is noticed at the next write: the
/// server sends a keep-alive comment on every stream now and then for that.
public final class EventStream: Sendable {
    struct State {
        var pending: [UInt8] = []
        var closed = false
        /// Set while the response is attached to a connection (between queueing and teardown).
        var connection: ConnectionRef?
        var suspended = false
        var onTermination: [@Sendable () -> Void] = []
    }

    let state = Mutex(State())

    public init() {}

    /// Queues one event. `data` may span lines (`\n`, `\r\n` or `\r`, all line ends to a
    /// receiver); each becomes a `data:` line.
    /// Returns false when the stream is closed (the event is dropped).
    @discardableResult
    public func send(event: String? = nil, id: String? = nil, data: String) -> Bool {
        var text = ""
        if let id { text += "id: \(Self.oneLine(id))\n" }
        if let event { text += "event: \(Self.oneLine(event))\n" }
        let lines = data.utf8.contains(13) ? data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") : data
        for line in lines.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line)\n"
        }
        text += "\n"
        return enqueue(Array(text.utf8))
    }

    /// Queues a comment line (`: …`), e.g. a keep-alive.
    @discardableResult
    public func comment(_ text: String) -> Bool {
        enqueue(Array(": \(Self.oneLine(text))\n\n".utf8))
    }

    /// Ends the stream after what is queued has been sent.
    public func close() {
        let resume = state.withLock { state -> ConnectionRef? in
            state.closed = true
            return state.takeSuspended()
        }
        resume.map { MHD_resume_connection($0.raw) }
    }

    /// Whether events can still be sent: not closed and the client has not gone away.
    public var isOpen: Bool { state.withLock { !$0.closed } }

    /// Runs `action` once when the stream ends (closed by us or by the client).
    public func onTermination(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.closed && state.connection == nil { return true }
            state.onTermination.append(action)
            return false
        }
        if runNow { action() }
    }

    private func enqueue(_ bytes: [UInt8]) -> Bool {
        let (accepted, resume) = state.withLock { state -> (Bool, ConnectionRef?) in
            guard !state.closed else { return (false, nil) }
            state.pending.append(contentsOf: bytes)
            return (true, state.takeSuspended())
        }
        resume.map { MHD_resume_connection($0.raw) }
        return accepted
    }

    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }

    // MARK: Called by the server's C callbacks

    func attach(to connection: ConnectionRef) {
        state.withLock { $0.connection = connection }
    }

    /// Copies queued bytes into `buffer`; suspends the connection when there are none yet.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        state.withLock { state -> Int in
            if !state.pending.isEmpty {
                let count = min(capacity, state.pending.count)
                state.pending.withUnsafeBufferPointer { source in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: count)
                }
                state.pending.removeFirst(count)
                return count
            }
            if state.closed { return Int(MHD_CONTENT_READER_END_OF_STREAM) }
            if let connection = state.connection {
                MHD_suspend_connection(connection.raw)
                state.suspended = true
            }
            return 0
        }
    }

    /// The response was destroyed: the client went away or the stream ended.
    func detach() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            state.closed = true
            state.connection = nil
            state.suspended = false
            defer { state.onTermination = [] }
            return state.onTermination
        }
        actions.forEach { $0() }
    }
}

extension EventStream.State {
    mutating func takeSuspended() -> ConnectionRef? {
        guard suspended, let connection else { return nil }
        suspended = false
        return connection
    }
}

/// An `MHD_Connection` pointer that may cross threads; MHD allows resume from any thread.
struct ConnectionRef: @unchecked Sendable {
    let raw: OpaquePointer
}
