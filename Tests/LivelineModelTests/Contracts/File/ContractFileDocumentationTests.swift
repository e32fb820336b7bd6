import Foundation
import LivelineModel
import Testing

/// The file and the canonical text `docs/contracts.md` shows under "Contract files" are what the
/// model reads and computes.
@Suite struct ContractFileDocumentationTests {
    /// The code blocks of `language` in the section `heading` of `docs/contracts.md`, in order.
    static func blocks(_ language: String, under heading: String) throws -> [String] {
        let text = try String(contentsOf: Fixture.repositoryRoot.appendingPathComponent("docs/contracts.md"), encoding: .utf8)
        let start = try #require(text.range(of: "\n## \(heading)\n"))
        let section = text[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        return section.components(separatedBy: "```\(language)\n").dropFirst().map { String($0.components(separatedBy: "\n```").first ?? "") }
    }

    @Test func theDocumentedFileParsesWithItsFingerprint() throws {
        let json = try #require(try Self.blocks("json", under: "Contract files").first)
        let file = try ContractFile.parse(Data(json.utf8))
        #expect(file.typeName == "DeliveryActivityAttributes" && file.version == 2)
        #expect(file.schema.shape == DeliveryActivityAttributes.schema)
        #expect(json.contains(#""fingerprint": "\#(file.fingerprint)""#))
        #expect(file.lifecycle?.materialKeys == ["status", "eta"])
    }

    @Test func theDocumentedCanonicalTextIsTheOneHashed() throws {
        let text = try #require(try Self.blocks("text", under: "Contract files").first)
        #expect(text == DeliveryActivityAttributes.schema.fingerprintText(typeName: "DeliveryActivityAttributes"))
    }

    @Test func theDocumentedReportIsTheOneWritten() throws {
        let documented = try #require(try Self.blocks("text", under: "Contract files").dropFirst().first)
        var new = DeliveryActivityAttributes.schema
        new.contentState.remove(at: 3)
        new.contentState.append(ContractField("sum", .double, optional: true))
        new.contentState[0].type = .enumeration(name: "Status", cases: ["preparing", "onTheWay", "delivered", "lost"])
        #expect(ContractCompatibility.report(from: DeliveryActivityAttributes.schema, to: new, oldVersion: 1, newVersion: 2) == documented)
    }
}
