import Foundation
import Synchronization

/// Where JSON log lines go: a file descriptor written in batches by a background thread, so a
/// request never waits on a terminal or a disk. Lines are flushed every `interval` and on `flush()`.
public final class LogSink: Sendable {
    private let buffer = Mutex<[UInt8]>([])
    private let descriptor: Int32
    private let stopped = Atomic<Bool>(false)
    private let flushLock = Mutex(())

    /// Writes to `descriptor` (1 = standard output, 2 = standard error); nil discards every line.
    public init(descriptor: Int32, interval: Duration = .milliseconds(100)) {
        self.descriptor = descriptor
        guard descriptor >= 0 else { return }
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        Thread.detachNewThread { [weak self] in
            while let sink = self, !sink.stopped.load(ordering: .relaxed) {
                sink.flush()
                Thread.sleep(forTimeInterval: seconds)
            }
        }
    }

    /// A sink that drops everything (tests that don't look at logs).
    public static func discarding() -> LogSink { LogSink(descriptor: -1) }

    /// Appends one line (a newline is added).
    public func write(_ line: String) {
        guard descriptor >= 0 else { return }
        let pending = buffer.withLock { buffer -> Int in
            buffer.append(contentsOf: line.utf8)
            buffer.append(UInt8(ascii: "\n"))
            return buffer.count
        }
        if pending > 1 << 20 { flush() }
    }

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
        stopped.store(true, ordering: .relaxed)
    }
}
