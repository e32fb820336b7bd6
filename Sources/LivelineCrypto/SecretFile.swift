import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file holding a secret this server generated (an admin key, a VAPID key): created readable by
/// its owner only from the first byte (0600, never the umask's mode for a moment), and only if it
/// does not exist — two servers starting on one data folder at once keep the first one's secret.
public enum SecretFile {
    /// Writes `contents` to a new file at `url` and flushes it to disk; false (and nothing
    /// written) when a file is there already. Throws naming the path and the system's reason.
    /// The file appears whole or not at all: written beside it, then linked to its name (which
    /// fails when the name is taken), so a server reading it at the same moment never reads half.
    public static func create(at url: URL, contents: [UInt8]) throws -> Bool {
        let staging = url.path + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CryptoError.file(.unwritableFile, "create", url, errno: errno) }
        defer { unlink(staging) }
        let failure = write(all: contents, to: descriptor)
        close(descriptor)
        guard failure == 0 else { throw CryptoError.file(.unwritableFile, "write", url, errno: failure) }
        guard link(staging, url.path) == 0 else {
            switch errno {
            case EEXIST: return false
            // A file system without hard links: created in place (a reader may then see it half-written).
            case EPERM, EXDEV, EMLINK, ENOTSUP, EOPNOTSUPP, ENOSYS: return try createInPlace(at: url, contents: contents)
            default: throw CryptoError.file(.unwritableFile, "create", url, errno: errno)
            }
        }
        return true
    }

    /// ``create(at:contents:)`` without the link: the file is made empty, then written.
    private static func createInPlace(at url: URL, contents: [UInt8]) throws -> Bool {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return false }
            throw CryptoError.file(.unwritableFile, "create", url, errno: errno)
        }
        let failure = write(all: contents, to: descriptor)
        close(descriptor)
        guard failure == 0 else {
            unlink(url.path)
            throw CryptoError.file(.unwritableFile, "write", url, errno: failure)
        }
        return true
    }

    /// Writes all of `contents` and flushes it to disk; 0, or the error number.
    private static func write(all contents: [UInt8], to descriptor: Int32) -> Int32 {
        var written = 0
        while written < contents.count {
            let count = contents.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else { break }
            written += count
        }
        return written < contents.count ? errno : fsync(descriptor) != 0 ? errno : 0
    }
}
