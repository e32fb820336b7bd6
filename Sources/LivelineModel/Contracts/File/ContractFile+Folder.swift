import Foundation

extension ContractFile {
    /// One `*.json` file of a contracts folder: its name, and the file or why it did not parse.
    public struct FolderEntry: Sendable {
        public var name: String
        public var file: Result<ContractFile, ContractFileError>
    }

    /// Reads every `*.json` file of `folder` (`LIVELINE_CONTRACTS_DIR`): the ones that parse in
    /// the order a server stores them (by type, then version), then the others by name. Throws
    /// only when the folder itself cannot be read (its message names the folder).
    public static func read(folder: URL) throws(ContractFileError) -> [FolderEntry] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            throw ContractFileError(
                .unreadable, at: "", "cannot read the contracts folder \(folder.path): \((error as NSError).localizedDescription)")
        }
        let entries = names.map { name in
            FolderEntry(
                name: name,
                file: Result { () throws(ContractFileError) -> ContractFile in
                    guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)) else {
                        throw ContractFileError(.unreadable, at: "", "cannot read the file")
                    }
                    return try parse(data)
                })
        }
        func order(_ entry: FolderEntry) -> (Int, String, Int, String) {
            guard case .success(let file) = entry.file else { return (1, "", 0, entry.name) }
            return (0, file.typeName, file.version, entry.name)
        }
        return entries.sorted { order($0) < order($1) }
    }
}
