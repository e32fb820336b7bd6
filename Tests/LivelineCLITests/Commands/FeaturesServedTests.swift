import Foundation
import LivelineAPI
import LivelineModel
import LivelineStore
import Testing

/// A Live Activity type that exists only in this test: a parcel on its way.
struct DeliveryActivityAttributes: LiveActivityContract {
    struct ContentState: Codable, Hashable, Sendable {
        var stopsAway: Int
        var rev: Int
    }

    var parcel: String

    static let typeName = "DeliveryActivityAttributes"
    static let version = 1
    static let schema = ContractSchema(
        attributes: [ContractField("parcel", .string, "the parcel's tracking number")],
        contentState: [ContractField("stopsAway", .int, "stops before the door"), ContractField("rev", .int, "the context's revision")])
    static let example = DeliveryActivityAttributes(parcel: "JJD0001")
    static let exampleContentState = ContentState(stopsAway: 3, rev: 1)
}

/// A feature that exists only in this test: deliveries, with one setting and one contract.
struct DeliveryFeature: Feature {
    var name: String { "delivery" }
    var contracts: [any LiveActivityContract.Type] { [DeliveryActivityAttributes.self] }
    var migrations: [Migration] { [] }
    var settings: [Setting] {
        [Setting("LIVELINE_DELIVERY_DEPOT", default: "none", values: "a depot's name", meaning: "where the parcels start")]
    }
    func install(into setup: FeatureSetup) throws {}
}

/// The commands serve the features of their context, not the built-in ones: the contracts they
/// know and the settings they list are those features' (docs/architecture.md, "Adding a feature").
@Suite struct FeaturesServedTests {
    static func output() -> CapturedOutput {
        let output = CapturedOutput()
        output.features = [DeliveryFeature()]
        return output
    }

    @Test func contractsListsAndShowsTheContractsOfTheFeaturesServed() {
        let list = Self.output()
        #expect(list.run(["contracts", "list"]) == 0)
        #expect(list.standardOutput == "DeliveryActivityAttributes")
        let show = Self.output()
        #expect(show.run(["contracts", "show", "DeliveryActivityAttributes"]) == 0)
        #expect(show.standardOutput.contains("\"attributes-type\" : \"DeliveryActivityAttributes\""))
        let builtIn = Self.output()
        #expect(builtIn.run(["contracts", "show", "ShoppingActivityAttributes"]) == 2)
        #expect(builtIn.standardError.contains("unknown contract type 'ShoppingActivityAttributes'; known: DeliveryActivityAttributes"))
    }

    @Test func contractsHelpTakesItsExampleFromTheFeaturesServed() {
        let output = Self.output()
        #expect(output.run(["contracts", "--help"]) == 0)
        #expect(output.standardOutput.contains("liveline contracts show DeliveryActivityAttributes"))
        #expect(!output.standardOutput.contains("Shopping") && !output.standardOutput.contains("Trip"), "\(output.standardOutput)")
    }

    @Test func contractsCheckKnowsOnlyTheFeaturesServed() throws {
        let file = try ContractsCommandTests.temporaryFile(
            #"{"aps":{"event":"update","timestamp":1781784000,"content-state":{"stopsAway":2,"rev":4}}}"#)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let accepted = Self.output()
        #expect(
            accepted.run(["contracts", "check", file, "--type", "DeliveryActivityAttributes", "--now", ContractsCommandTests.now]) == 0,
            "\(accepted.standardOutput)")
        let unnamed = Self.output()
        #expect(unnamed.run(["contracts", "check", file]) == 2)
        #expect(unnamed.standardError.contains("known: DeliveryActivityAttributes"), "\(unnamed.standardError)")
    }

    @Test func settingsAndServeHelpListTheSettingsOfTheFeaturesServed() {
        let settings = Self.output()
        #expect(settings.run(["settings"]) == 0)
        #expect(settings.standardOutput.contains("## Feature delivery") && settings.standardOutput.contains("`LIVELINE_DELIVERY_DEPOT`"))
        #expect(!settings.standardOutput.contains("## Feature shopping"))
        let serve = Self.output()
        #expect(serve.run(["serve", "--help"]) == 0)
        #expect(serve.standardOutput.contains("    LIVELINE_DELIVERY_DEPOT "))
        #expect(!serve.standardOutput.contains("LIVELINE_SHOPPING_PRESENCE_TIMEOUT_S"))
    }
}
