import Foundation
import LivelineModel
import Testing

/// A file's material keys decide which changes go at priority 10 (`docs/contracts.md`, "Contract
/// files"; `docs/engine.md`, "Budgets and priority").
@Suite struct ContractLifecycleTests {
    static let lifecycle = ContractLifecycle(materialKeys: ["status", "eta", "items"])
    static let state: JSONValue = ["status": "preparing", "eta": 800_000_000, "items": [["name": "Pizza"]], "note": "ring twice", "rev": 4]

    /// `state` with `changes` applied.
    static func state(_ changes: [String: JSONValue]) -> JSONValue {
        .object((state.objectValue ?? [:]).merging(changes) { _, new in new })
    }

    @Test func aChangeOfAMaterialKeyIsNamedWithItsValues() {
        #expect(Self.lifecycle.materialChange(from: Self.state, to: Self.state(["status": "onTheWay"])) == "status preparing → onTheWay")
        #expect(
            Self.lifecycle.materialChange(from: Self.state, to: Self.state(["status": "delivered", "items": []]))
                == "status preparing → delivered, items changed")
        #expect(Self.lifecycle.materialChange(from: Self.state, to: Self.state(["eta": nil])) == "eta 800000000 → –")
    }

    @Test func otherKeysAndRevAreQuiet() {
        #expect(Self.lifecycle.materialChange(from: Self.state, to: Self.state(["note": "leave at door", "rev": 5])) == nil)
        #expect(ContractLifecycle(materialKeys: ["rev"]).materialChange(from: Self.state, to: Self.state(["rev": 5])) == nil)
        #expect(ContractLifecycle(materialKeys: []).materialChange(from: Self.state, to: Self.state(["status": "delivered"])) == nil)
    }

    @Test func anAbsentKeyEqualsNull() {
        var without = Self.state.objectValue ?? [:]
        without["eta"] = nil
        #expect(Self.lifecycle.materialChange(from: Self.state(["eta": nil]), to: .object(without)) == nil)
        #expect(Self.lifecycle.materialChange(from: .object(without), to: Self.state) == "eta – → 800000000")
    }

    @Test func withoutMaterialKeysEveryChangeButRevIsMaterial() {
        let every = ContractLifecycle()
        #expect(every.materialChange(from: Self.state, to: Self.state(["note": "x"])) == "the content state changed")
        #expect(every.materialChange(from: Self.state, to: Self.state(["rev": 9])) == nil)
        #expect(every.materialChange(from: Self.state, to: Self.state(["eta": .double(800_000_000)])) == nil, "numbers compare by value")
        let file = ContractFile(typeName: "T", version: 1, schema: ContractSchema(attributes: [], contentState: []))
        #expect(file.materialChange(from: Self.state, to: Self.state(["note": "x"])) == "the content state changed")
    }
}
