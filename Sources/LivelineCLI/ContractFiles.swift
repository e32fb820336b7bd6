import Foundation
import LivelineModel

/// The contract files of `LIVELINE_CONTRACTS_DIR` as the command line reads them: what `contracts
/// list`, `show`, `check` and `push` know besides the features' contracts, as `serve` loads them
/// (`docs/contracts.md`, "Bring your own Live Activity").
struct ContractFiles {
    /// The latest version of each type the folder holds.
    var contracts: [AnyContract] = []
    /// Each file that was skipped, with why.
    var skipped: [(file: String, reason: String)] = []

    /// The files of `folder` (none when nil); a file that does not parse, or that takes the name
    /// of a contract in `builtIn`, is skipped with its reason.
    init(folder: String?, builtIn: Set<String>) {
        guard let folder, !folder.isEmpty else { return }
        let entries: [ContractFile.FolderEntry]
        do {
            entries = try ContractFile.read(folder: URL(fileURLWithPath: folder))
        } catch {
            skipped.append((folder, error.message))
            return
        }
        var latest: [String: AnyContract] = [:]
        for entry in entries {
            switch entry.file {
            case .failure(let error):
                skipped.append((entry.name, "\(error)"))
            case .success(let file) where builtIn.contains(file.typeName):
                skipped.append((entry.name, "'\(file.typeName)' is a contract compiled in; a contract file takes another name"))
            case .success(let file):
                // In version order: the last of a type is its latest.
                latest[file.typeName] = AnyContract(file: file, origin: .file(entry.name))
            }
        }
        contracts = latest.values.sorted { $0.typeName < $1.typeName }
    }
}
