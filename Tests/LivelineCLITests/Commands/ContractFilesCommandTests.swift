import Foundation
import LivelineModel
import LivelineTestSupport
import Testing

/// `liveline contracts` with an app's own contract files (`LIVELINE_CONTRACTS_DIR`) and `contracts
/// diff`, the server's verdict on a new version, offline (`docs/contracts.md`, "Bring your own
/// Live Activity").
@Suite struct ContractFilesCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let exported = root.appendingPathComponent("examples/custom-activity/contracts/DeliveryActivityAttributes.json")

    /// A folder holding the example's exported file, a broken file and one taking a built-in name.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-contract-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: exported, to: folder.appendingPathComponent("DeliveryActivityAttributes.json"))
        try Data("{".utf8).write(to: folder.appendingPathComponent("broken.json"))
        let clash = ContractFile(
            typeName: "TripLiveActivityAttributes", version: 1, schema: ContractSchema(attributes: [], contentState: [ContractField("a", .int)]))
        try clash.json.write(to: folder.appendingPathComponent("clash.json"))
        return folder
    }

    @Test func aContractFileIsListedShownAndCheckedLikeABuiltInContract() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = CapturedOutput()
        output.environment["LIVELINE_CONTRACTS_DIR"] = folder.path
        #expect(output.run(["contracts", "list"]) == 0)
        #expect(output.standardOutput.split(separator: "\n").contains("DeliveryActivityAttributes"))
        #expect(output.standardError.contains("skipped broken.json: "), "\(output.standardError)")
        #expect(output.standardError.contains("skipped clash.json: 'TripLiveActivityAttributes' is a contract compiled in"))

        let shown = CapturedOutput()
        shown.environment["LIVELINE_CONTRACTS_DIR"] = folder.path
        #expect(shown.run(["contracts", "show", "DeliveryActivityAttributes"]) == 0)
        #expect(shown.standardOutput.contains("courierName") && shown.standardOutput.contains("\"attributes-type\" : \"DeliveryActivityAttributes\""))

        // A payload of the type is checked against the file: a status it does not list is named.
        let payload = folder.appendingPathComponent("update.json")
        try Data(
            #"{"aps":{"timestamp":1767574000,"event":"update","content-state":{"status":"lost","eta":818000000,"courierName":null,"items":[]}}}"#
                .utf8
        ).write(to: payload)
        let checked = CapturedOutput()
        checked.environment["LIVELINE_CONTRACTS_DIR"] = folder.path
        #expect(checked.run(["contracts", "check", payload.path, "--type", "DeliveryActivityAttributes", "--now", "1767574000"]) == 1)
        #expect(checked.standardOutput.contains("aps.content-state.status"), "\(checked.standardOutput)")
    }

    @Test func diffGivesTheServersVerdictOnANewVersion() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let v1 = try ContractFile.parse(Data(contentsOf: Self.exported))
        var additive = v1
        additive.version = 2
        additive.schema.contentState.append(ContractField("tip", .double, optional: true, since: 2))
        var removing = v1
        removing.version = 2
        removing.schema.contentState.removeAll { $0.key == "items" }
        removing.exampleContentState = nil
        for (name, file) in [("v2-additive.json", additive), ("v2-removing.json", removing)] {
            try file.json.write(to: folder.appendingPathComponent(name))
        }
        let compatible = CapturedOutput()
        #expect(compatible.run(["contracts", "diff", Self.exported.path, folder.appendingPathComponent("v2-additive.json").path]) == 0)
        #expect(compatible.standardOutput.contains("compatible") && compatible.standardOutput.contains("contentState.tip"))
        let breaking = CapturedOutput()
        #expect(breaking.run(["contracts", "diff", Self.exported.path, folder.appendingPathComponent("v2-removing.json").path]) == 1)
        #expect(breaking.standardOutput.contains("breaking") && breaking.standardOutput.contains("contentState.items"), "\(breaking.standardOutput)")
        let wrong = CapturedOutput()
        #expect(wrong.run(["contracts", "diff", Self.exported.path, folder.appendingPathComponent("broken.json").path]) == 2)
        #expect(wrong.standardError.contains("broken.json is not a contract file"), "\(wrong.standardError)")
    }
}
