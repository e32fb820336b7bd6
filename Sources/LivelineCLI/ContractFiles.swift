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
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            skipped.append((folder, "cannot read the folder: \((error as NSError).localizedDescription)"))
            return
        }
        var latest: [String: AnyContract] = [:]
        for name in names {
            do {
                let file = try ContractFile.parse(Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name)))
                guard !builtIn.contains(file.typeName) else {
                    skipped.append((name, "'\(file.typeName)' is a contract compiled in; a contract file takes another name"))
                    continue
                }
                if (latest[file.typeName]?.version ?? 0) < file.version { latest[file.typeName] = AnyContract(file: file, origin: .file(name)) }
            } catch {
                skipped.append((name, "\(error)"))
            }
        }
        contracts = latest.values.sorted { $0.typeName < $1.typeName }
    }
}
