import Foundation
import LivelineLog
import LivelineModel

extension ContractLibrary {
    /// What loading a folder of contract files did: the files stored (or stored already), and
    /// the ones refused with why.
    public struct FolderReport: Sendable {
        public var loaded: [String] = []
        public var refused: [(file: String, reason: String)] = []
    }

    /// Loads every `*.json` file of `folder` (`LIVELINE_CONTRACTS_DIR`), the versions of a type
    /// in order. A file that does not parse, or whose version is refused (``put(_:origin:force:)``),
    /// is logged with its name and why and skipped: the others load. Throws when the folder cannot
    /// be read.
    @discardableResult
    public func loadFolder(_ folder: URL) throws -> FolderReport {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            throw EngineError("cannot read the contracts folder \(folder.path): \((error as NSError).localizedDescription)")
        }
        var report = FolderReport()
        var files: [(name: String, file: ContractFile)] = []
        for name in names {
            do {
                let data = try Data(contentsOf: folder.appendingPathComponent(name))
                files.append((name, try ContractFile.parse(data)))
            } catch {
                refuse(name, because: "\(error)", into: &report)
            }
        }
        for (name, file) in files.sorted(by: { ($0.file.typeName, $0.file.version) < ($1.file.typeName, $1.file.version) }) {
            do {
                try put(file, origin: .file(name))
                report.loaded.append(name)
            } catch {
                refuse(name, because: "\(error)", into: &report)
            }
        }
        return report
    }

    private func refuse(_ name: String, because reason: String, into report: inout FolderReport) {
        report.refused.append((name, reason))
        logger.record(EngineEvent(.error, .contractRefused, message: "contract file \(name) is not loaded: \(reason)"))
    }
}
