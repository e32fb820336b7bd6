import Dispatch
import Foundation
import LivelineScheduling
import Synchronization

/// Where JSON log lines go: a file descriptor written in batches by a timer, so a request never
/// waits on a terminal or a disk. Lines are flushed every `interval` and on `flush()`.
public final class LogSink: Sendable {
    private let buffer = Mutex<[UInt8]>([])
    private let descriptor: Int32
    private let flusher = Mutex<RepeatingTimer?>(nil)
    private let flushLock = Mutex(())
    /// Whether lines are kept in memory (``inMemory()``) instead of written out.
    private let keeps: Bool
    private let kept = Mutex<[String]>([])

    /// Writes to `descriptor` (1 = standard output, 2 = standard error); nil discards every line.
    public init(descriptor: Int32, interval: Duration = .milliseconds(100)) {
        self.descriptor = descriptor
        keeps = false
        guard descriptor >= 0 else { return }
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        // A queue of its own: a write to a stalled pipe then holds a thread the dispatch pool adds
        // for it, not one of the few the global queue shares with everything else.
        let timer = RepeatingTimer(every: seconds, queue: DispatchQueue(label: "liveline.log-flush")) { [weak self] in self?.flush() }
        flusher.withLock { $0 = timer }
    }

    private init(keeping: Void) {
        descriptor = -1
        keeps = true
    }

    /// A sink that drops everything (tests that don't look at logs).
    public static func discarding() -> LogSink { LogSink(descriptor: -1) }

    /// A sink that keeps every line in memory, for tests that read the log (``lines``).
    public static func inMemory() -> LogSink { LogSink(keeping: ()) }

    /// The lines written so far to an in-memory sink, oldest first; empty for any other sink.
    public var lines: [String] { kept.withLock { $0 } }

    /// Appends one finished line (a newline is added), from its bytes.
    public func write(_ line: JSONLine) {
        if keeps {
            kept.withLock { $0.append(line.string) }
            return
        }
        guard descriptor >= 0 else { return }
        let pending = buffer.withLock { buffer -> Int in
            line.appendLine(to: &buffer)
            return buffer.count
        }
        if pending > 1 << 20 { flush() }
    }

    /// Whether every line written is dropped (``discarding()``): a caller may skip building them.
    public var discards: Bool { !keeps && descriptor < 0 }

    /// Writes out everything buffered so far.
    public func flush() {
        guard descriptor >= 0 else { return }
        flushLock.withLock { _ in
            let bytes = buffer.withLock { buffer -> [UInt8] in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { raw in
                    Foundation.write(descriptor, raw.baseAddress, raw.count)
                }
                if written <= 0 { break }
                offset += written
            }
        }
    }

    deinit {
        flusher.withLock { $0?.cancel() }
        flush()
    }
}
