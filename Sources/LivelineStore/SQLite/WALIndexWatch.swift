import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells, without a lock or a system call, whether any connection may have committed since it
/// last looked: it reads the header of the WAL index (the database's `-shm` file, mapped into
/// memory), which every commit of every process rewrites before its changes become visible
/// (SQLite, "WAL-mode File Format", §2.1 "The WAL-Index Header": its change counter, the last
/// valid frame, the WAL's salts and checksum).
///
/// It only ever says "maybe": a header that differs from the last one seen (a commit, a
/// checkpoint that restarted the WAL, a read caught mid-update) sends the caller to
/// `PRAGMA data_version`, which is exact. A header that is the same means no commit became
/// visible since it was seen. Where the file cannot be mapped, every look says "maybe".
final class WALIndexWatch: @unchecked Sendable {
    /// The first of the header's two copies: 48 bytes at the start of the file.
    private static let headerBytes = 48
    private let base: UnsafeMutableRawPointer?

    /// Maps the start of `<database>-shm` (read-only); the file exists once a connection opened
    /// the database in WAL mode.
    init(databasePath: String) {
        let descriptor = open(databasePath + "-shm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            base = nil
            return
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= Self.headerBytes else {
            base = nil
            return
        }
        let mapped = mmap(nil, Self.headerBytes, PROT_READ, MAP_SHARED, descriptor, 0)
        base = mapped == MAP_FAILED ? nil : mapped
    }

    deinit {
        if let base { munmap(base, Self.headerBytes) }
    }

    /// The header as it is now (nil when it is not mapped).
    func header() -> [UInt64]? {
        guard let base else { return nil }
        // Volatile enough: each word is loaded from the shared mapping on every call.
        return (0..<Self.headerBytes / 8).map { base.load(fromByteOffset: $0 * 8, as: UInt64.self) }
    }
}
