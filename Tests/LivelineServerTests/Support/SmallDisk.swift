import Foundation
import LivelineTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A tmpfs of its own, mounted in a temporary folder for one test, that a filler file can make
/// full (`docs/reliability.md`, "Disk full"). Mounting needs root (or `CAP_SYS_ADMIN`): a test
/// that needs it runs only where ``mountPermitted`` (as the network-fault tests run only where
/// namespaces can be made), and says why it is skipped elsewhere; a mount that fails after that
/// fails the test.
final class SmallDisk {
    /// Whether this machine lets the tests mount a tmpfs (tried once, with a 1 MB one).
    static let mountPermitted: Bool = {
        guard let disk = try? SmallDisk(megabytes: 1) else { return false }
        disk.unmount()
        return true
    }()

    let root: URL
    let megabytes: Int
    private var mounted = false

    var filler: URL { root.appendingPathComponent("filler") }

    /// Mounting failed: the test fails with this (it is not skipped).
    struct MountRefused: Error, CustomStringConvertible {
        var description: String
    }

    init(megabytes: Int) throws {
        self.megabytes = megabytes
        root = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-small-disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let result = try ChildProcess.run("mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", root.path], timeout: 30)
        guard result.termination == .exited(0) else {
            try? FileManager.default.removeItem(at: root)
            let said = String(decoding: result.errors + result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw MountRefused(
                description: """
                    this test mounts a \(megabytes) MB tmpfs to fill it up, and mounting is not permitted here (mount \(result.termination): \
                    \(said)); run it as root or in a container with CAP_SYS_ADMIN (e.g. docker run --privileged)
                    """)
        }
        mounted = true
    }

    /// Bytes the file system still gives to new data.
    func freeBytes() -> Int {
        var info = statvfs()
        guard statvfs(root.path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Takes all but `room` bytes of what is free with one allocated file (tmpfs keeps no holes:
    /// `posix_fallocate` gives it pages).
    func fill(leaving room: Int) throws {
        let size = freeBytes() - room
        try #require(size > 0, "the tmpfs has only \(freeBytes()) bytes free, less than the \(room) to leave")
        let descriptor = open(filler.path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0, "could not create \(filler.path): \(String(cString: strerror(errno)))")
        defer { close(descriptor) }
        let error = posix_fallocate(descriptor, 0, off_t(size))
        try #require(error == 0, "could not allocate \(size) bytes for \(filler.path): \(String(cString: strerror(error)))")
    }

    /// Deletes the filler: its space is free again at once.
    func free() throws {
        try FileManager.default.removeItem(at: filler)
    }

    /// Unmounts (lazily if something still holds a file there, so no mount outlives the test) and
    /// removes the folder.
    func unmount() {
        guard mounted else { return }
        mounted = false
        if (try? ChildProcess.run("umount", [root.path], timeout: 30).termination) != .exited(0) {
            _ = try? ChildProcess.run("umount", ["-l", root.path], timeout: 30)
        }
        try? FileManager.default.removeItem(at: root)
    }

    deinit { unmount() }
}
