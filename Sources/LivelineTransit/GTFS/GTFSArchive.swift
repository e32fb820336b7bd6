internal import CZip
import Foundation

/// Where a GTFS feed's files are: a `.zip` archive (read with libzip; files may sit in a folder
/// inside it) or a folder of `.txt` files.
struct GTFSArchive: Sendable {
    enum Source: Sendable {
        case zip(URL)
        case folder(URL)
    }
    let source: Source
    /// The `.txt` files there are, by name.
    let names: Set<String>

    init(path: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            throw GTFSError("there is no GTFS feed at \(path.path)")
        }
        if isDirectory.boolValue {
            source = .folder(path)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: path.path)) ?? []
            names = Set(files.filter { $0.hasSuffix(".txt") })
        } else {
            source = .zip(path)
            names = try Self.withArchive(path) { archive in
                var names = Set<String>()
                for index in 0..<zip_get_num_entries(archive, 0) {
                    guard let name = zip_get_name(archive, zip_uint64_t(index), 0) else { continue }
                    let file = String(cString: name).split(separator: "/").last.map(String.init) ?? ""
                    if file.hasSuffix(".txt") { names.insert(file) }
                }
                return names
            }
        }
    }

    /// A hash of the feed's files (FNV-1a, 64 bits, over the archive, or over the folder's `.txt`
    /// files by name): the same feed is not loaded twice.
    func fingerprint() throws -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ bytes: [UInt8]) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        switch source {
        case .zip(let path):
            guard let data = FileManager.default.contents(atPath: path.path) else { throw GTFSError("\(path.path) cannot be read") }
            add(Array(data))
        case .folder:
            for name in names.sorted() {
                add(Array(name.utf8))
                add(try file(name) ?? [])
            }
        }
        return String(format: "%016llx", hash)
    }

    /// The bytes of `name` (`stops.txt`); nil when the feed has no such file.
    func file(_ name: String) throws -> [UInt8]? {
        guard names.contains(name) else { return nil }
        switch source {
        case .folder(let folder):
            // Through a file handle: Foundation's `contents(atPath:)` and `Data(contentsOf:)` leak
            // a 4 KiB buffer for every empty file (found by `scripts/fuzz.sh gtfs-csv`).
            guard let handle = try? FileHandle(forReadingFrom: folder.appendingPathComponent(name)) else {
                throw GTFSError("\(name) in \(folder.path) cannot be read")
            }
            defer { try? handle.close() }
            let data: Data?
            do { data = try handle.readToEnd() } catch { throw GTFSError("\(name) in \(folder.path) cannot be read") }
            return data.map { [UInt8]($0) } ?? []
        case .zip(let path):
            return try Self.withArchive(path) { archive in
                // The file wherever it is inside the archive (feeds are often zipped with their folder).
                let index = zip_name_locate(archive, name, zip_flags_t(ZIP_FL_NODIR))
                guard index >= 0 else { return nil }
                var stat = zip_stat_t()
                zip_stat_init(&stat)
                guard zip_stat_index(archive, zip_uint64_t(index), 0, &stat) == 0 else {
                    throw GTFSError("\(path.lastPathComponent): \(name): \(Self.reason(archive))")
                }
                guard let file = zip_fopen_index(archive, zip_uint64_t(index), 0) else {
                    throw GTFSError("\(path.lastPathComponent): \(name) cannot be opened: \(Self.reason(archive))")
                }
                defer { zip_fclose(file) }
                var bytes = [UInt8](repeating: 0, count: Int(stat.size))
                var read = 0
                while read < bytes.count {
                    let count = bytes.withUnsafeMutableBytes { buffer in
                        zip_fread(file, buffer.baseAddress! + read, zip_uint64_t(buffer.count - read))
                    }
                    guard count > 0 else {
                        let error = String(cString: zip_error_strerror(zip_file_get_error(file)))
                        throw GTFSError("\(path.lastPathComponent): \(name) is damaged (read \(read) of \(bytes.count) bytes): \(error)")
                    }
                    read += Int(count)
                }
                return bytes
            }
        }
    }

    /// Opens the archive (checking its consistency: a truncated download is refused here), runs
    /// `body`, closes it.
    private static func withArchive<T>(_ path: URL, _ body: (OpaquePointer) throws -> T) throws -> T {
        var code: Int32 = 0
        guard let archive = zip_open(path.path, ZIP_RDONLY | ZIP_CHECKCONS, &code) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            throw GTFSError("\(path.lastPathComponent) is no readable zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        defer { zip_discard(archive) }
        return try body(archive)
    }

    private static func reason(_ archive: OpaquePointer) -> String { String(cString: zip_strerror(archive)) }
}
