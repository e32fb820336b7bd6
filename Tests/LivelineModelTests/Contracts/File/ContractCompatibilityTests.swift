import Foundation
import LivelineModel
import Testing

/// Going from an old contract to a new one is judged for an app built with the old one and for
/// the states stored under it (`docs/contracts.md`, "Compatibility of two contract files").
@Suite struct ContractCompatibilityTests {
    static let old = DeliveryActivityAttributes.schema

    /// `old` with its content state changed by `change`.
    static func new(_ change: (inout [ContractField]) -> Void) -> ContractSchema {
        var schema = old
        change(&schema.contentState)
        return schema
    }

    static func changes(_ change: (inout [ContractField]) -> Void) -> [ContractChange] {
        ContractCompatibility.changes(from: old, to: new(change))
    }

    @Test func theSameSchemaHasNoChanges() {
        #expect(ContractCompatibility.changes(from: Self.old, to: Self.old).isEmpty)
        var reordered = Self.old
        reordered.contentState.reverse()
        #expect(ContractCompatibility.changes(from: Self.old, to: reordered).isEmpty, "key order does not decode")
    }

    @Test func removingARequiredKeyBreaksAndARenameIsGuessed() throws {
        let removed = Self.changes { $0.remove(at: 3) }
        #expect(removed.map(\.keyPath) == ["contentState.total"])
        #expect(removed.first?.kind == .keyRemoved && removed.first?.isBreaking == true)
        let renamed = Self.changes {
            $0[3].key = "sum"
            $0[3].isOptional = true
        }
        let removal = try #require(renamed.first { $0.kind == .keyRemoved })
        #expect(removal.isBreaking)
        #expect(
            removal.description
                == "contentState.total: removed; an app built with the old contract requires it and drops every state without it. Renamed to 'sum'?")
        #expect(renamed.contains { $0.kind == .keyAdded && $0.keyPath == "contentState.sum" && !$0.isBreaking })
        let otherType = Self.changes { $0[3] = ContractField("sum", .string, optional: true) }
        #expect(otherType.first { $0.kind == .keyRemoved }?.description.contains("Renamed") == false, "a key of another type is no rename")
    }

    @Test func removingAnOptionalKeyIsCompatible() {
        let changes = Self.changes { $0.remove(at: 1) }
        #expect(changes.map(\.kind) == [.keyRemoved])
        #expect(changes.first?.isBreaking == false)
    }

    @Test func changingATypeBreaks() {
        let changes = Self.changes { $0[3].type = .int }
        #expect(changes.map(\.kind) == [.typeChanged] && changes.first?.isBreaking == true)
        #expect(changes.first?.message.hasPrefix("type changed from Double to Int;") == true)
        let nested = Self.changes {
            $0[2].type = .array(.object(name: "Item", fields: [ContractField("name", .int), ContractField("quantity", .int)]))
        }
        #expect(nested.map(\.keyPath) == ["contentState.items[].name"] && nested.first?.isBreaking == true)
    }

    @Test func optionalityChangesBreakBothWays() {
        let required = Self.changes { $0[1].isOptional = false }
        #expect(required.map(\.kind) == [.madeRequired] && required.first?.isBreaking == true)
        let optional = Self.changes { $0[4].isOptional = true }
        #expect(optional.map(\.kind) == [.madeOptional] && optional.first?.isBreaking == true)
    }

    @Test func addingARequiredKeyBreaksAndAnOptionalOneDoesNot() {
        let required = Self.changes { $0.append(ContractField("tip", .double)) }
        #expect(required.map(\.kind) == [.keyAdded] && required.first?.isBreaking == true)
        #expect(required.first?.message.contains("states stored under the old contract lack it") == true)
        let optional = Self.changes { $0.append(ContractField("tip", .double, optional: true, since: 2)) }
        #expect(optional.map(\.kind) == [.keyAdded] && optional.first?.isBreaking == false)
        var attributes = Self.old
        attributes.attributes.append(ContractField("table", .int))
        #expect(ContractCompatibility.changes(from: Self.old, to: attributes).map(\.keyPath) == ["attributes.table"])
    }

    @Test func anAddedEnumCaseBreaksAndARemovedOneDoesNot() {
        let added = Self.changes { $0[0].type = .enumeration(name: "Status", cases: ["preparing", "onTheWay", "delivered", "lost"]) }
        #expect(added.map(\.kind) == [.caseAdded] && added.first?.isBreaking == true)
        #expect(added.first?.message.contains("drops every state whose status is 'lost'") == true)
        #expect(added.first?.message.contains("the per-push check still lets states with the old cases through") == true)
        let removed = Self.changes { $0[0].type = .enumeration(name: "Status", cases: ["preparing", "delivered"]) }
        #expect(removed.map(\.kind) == [.caseRemoved] && removed.first?.isBreaking == false)
    }

    @Test func editingASummaryIsCompatible() {
        let changes = Self.changes { $0[0].summary = "where the order is" }
        #expect(changes.map(\.kind) == [.summaryChanged] && changes.first?.isBreaking == false)
    }

    @Test func theReportGivesTheVerdictThenEachChange() {
        let breaking = ContractCompatibility.report(
            from: Self.old,
            to: Self.new {
                $0.remove(at: 3); $0.append(ContractField("tip", .double, optional: true))
            }, oldVersion: 1, newVersion: 2)
        let lines = breaking.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Version 1 → 2: breaking (1 change).") == true)
        #expect(lines.contains("Breaking:") && lines.contains("Compatible:"))
        #expect(lines.contains { $0.hasPrefix("  contentState.total: removed;") })
        #expect(lines.contains { $0.hasPrefix("  contentState.tip: added as optional;") })
        let compatible = ContractCompatibility.report(
            from: Self.old, to: Self.new { $0.append(ContractField("tip", .double, optional: true)) }, oldVersion: 2, newVersion: 2)
        #expect(compatible.hasPrefix("Version 2 → 2: compatible."))
        #expect(compatible.hasSuffix("The version is still 2 though keys changed; raise it to 3."))
        let none = ContractCompatibility.report(from: Self.old, to: Self.old, oldVersion: 1, newVersion: 1)
        #expect(none == "Version 1 → 1: compatible; nothing that decoding depends on changed.")
    }
}
