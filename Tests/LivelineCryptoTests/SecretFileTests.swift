import Foundation
import LivelineCrypto
import Testing

@Suite struct SecretFileTests {
    @Test func aSecretFileIsMadeOwnerOnlyOnceAndNeverReplaced() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("secret")
        #expect(try SecretFile.create(at: file, contents: Array("first".utf8)))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600)
        #expect(try !SecretFile.create(at: file, contents: Array("second".utf8)), "there already")
        #expect(try String(contentsOf: file, encoding: .utf8) == "first")
        #expect(throws: CryptoError.self) { try SecretFile.create(at: folder.appendingPathComponent("missing/secret"), contents: [1]) }
    }
}
