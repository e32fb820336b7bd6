import Foundation
import LivelineCrypto
import Synchronization
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

    @Test func serversCreatingOneSecretTogetherKeepOneAndNoReaderSeesHalf() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Secrets of 64 KB: a write in one piece is not what makes a reader see it whole.
        let contents = (0..<4).map { writer in [UInt8](repeating: UInt8(ascii: "a") + UInt8(writer), count: 65_536) }
        for round in 0..<50 {
            let file = folder.appendingPathComponent("secret-\(round)")
            let created = Mutex(0)
            let torn = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if index < 4 {
                    if (try? SecretFile.create(at: file, contents: contents[index])) == true { created.withLock { $0 += 1 } }
                } else if let read = FileManager.default.contents(atPath: file.path), !contents.contains(Array(read)) {
                    torn.withLock { $0.append(read.count) }
                }
            }
            #expect(created.withLock { $0 } == 1, "round \(round): one server made it")
            #expect(torn.withLock { $0 }.isEmpty, "round \(round): a reader saw part of it: \(torn.withLock { $0 }) bytes")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".new-") }.isEmpty, "nothing left beside it")
        }
    }
}
