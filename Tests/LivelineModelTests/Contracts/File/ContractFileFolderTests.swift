import Foundation
import LivelineModel
import Testing

/// A contracts folder is read in the order a server stores its files: by type, then version,
/// whatever the file names; files that do not parse come last with why; a folder that cannot be
/// read is an error naming it.
@Suite struct ContractFileFolderTests {
    @Test func filesComeByTypeAndVersionAndBrokenOnesLast() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-contracts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func file(_ type: String, _ version: Int) -> ContractFile {
            ContractFile(
                typeName: type, version: version,
                schema: ContractSchema(attributes: [], contentState: (1...version).map { ContractField("k\($0)", .int, optional: $0 > 1, since: $0) })
            )
        }
        try file("B", 1).json.write(to: folder.appendingPathComponent("a.json"))
        try file("A", 2).json.write(to: folder.appendingPathComponent("b.json"))
        try file("A", 1).json.write(to: folder.appendingPathComponent("c.json"))
        try Data("{".utf8).write(to: folder.appendingPathComponent("0-broken.json"))
        try Data("not a contract".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let entries = try ContractFile.read(folder: folder)
        #expect(entries.map(\.name) == ["c.json", "b.json", "a.json", "0-broken.json"])
        guard case .failure(let error) = entries.last?.file else {
            Issue.record("the broken file parsed")
            return
        }
        #expect(error.code == .notJSON)

        let missing = folder.appendingPathComponent("nothing-here")
        #expect {
            try ContractFile.read(folder: missing)
        } throws: { error in
            (error as? ContractFileError)?.code == .unreadable && "\(error)".contains(missing.path)
        }
    }
}
