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
        let entries: [ContractFile.FolderEntry]
        do {
            entries = try ContractFile.read(folder: folder)
        } catch {
            throw EngineError(error.message)
        }
        var report = FolderReport()
        for entry in entries {
            do {
                try put(entry.file.get(), origin: .file(entry.name))
                report.loaded.append(entry.name)
            } catch {
                refuse(entry.name, because: "\(error)", into: &report)
            }
        }
        return report
    }

    private func refuse(_ name: String, because reason: String, into report: inout FolderReport) {
        report.refused.append((name, reason))
        logger.record(EngineEvent(.error, .contractRefused, message: "contract file \(name) is not loaded: \(reason)"))
    }
}
