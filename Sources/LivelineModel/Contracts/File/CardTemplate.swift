import Foundation

/// A contract's card as text with placeholders, for a contract that has no Swift drawing of its
/// own on the server (`docs/contracts.md`, "Contract files").
///
/// `{key}` is a content-state key, `{attributes.key}` a static attribute, `{{` a literal `{`
/// (a `}` outside a placeholder is itself). A missing or `null` value shows as `–`, text without
/// quotes, numbers and `true`/`false` as JSON writes them, a `Date` key as its UTC time `14:05`,
/// an array or object as compact JSON.
public struct CardTemplate: Sendable, Hashable {
    /// The lock screen; the badge (e.g. " (ended)") goes at the end of its first line.
    public var lockScreen: String
    public var compactLeading: String
    public var compactTrailing: String
    public var expanded: String

    public init(lockScreen: String, compactLeading: String = "", compactTrailing: String = "", expanded: String = "") {
        self.lockScreen = lockScreen
        self.compactLeading = compactLeading
        self.compactTrailing = compactTrailing
        self.expanded = expanded
    }

    /// The four texts with the names a file gives them, in file order.
    var parts: [(name: String, text: String)] {
        [("lockScreen", lockScreen), ("compactLeading", compactLeading), ("compactTrailing", compactTrailing), ("expanded", expanded)]
    }

    /// The card of these documents. With the contract's `schema`, a content-state or attribute key
    /// of type `Date` shows as its time; without, as its number.
    public func render(attributes: JSONValue, contentState: JSONValue, badge: String, schema: ContractSchema? = nil) -> RenderedCard {
        let values = CardValues(attributes: attributes, contentState: contentState, schema: schema)
        let lock = values.fill(lockScreen)
        let firstBreak = lock.firstIndex(of: "\n") ?? lock.endIndex
        return RenderedCard(
            lockScreen: String(lock[..<firstBreak]) + badge + String(lock[firstBreak...]), compactLeading: values.fill(compactLeading),
            compactTrailing: values.fill(compactTrailing), expanded: values.fill(expanded))
    }

    /// The plain card a Swift contract draws by default (`LiveActivityContract+Card.swift`): the
    /// type's name and the badge, then each key of the content state with its JSON value, in key
    /// order; the island shows the type's name.
    public static func plain(typeName: String, attributes: JSONValue, contentState: JSONValue, badge: String) -> RenderedCard {
        let members = contentState.objectValue ?? [:]
        let lines = members.keys.sorted().map { "\($0): \(members[$0]?.compactText ?? "")" }
        return RenderedCard(
            lockScreen: ([typeName + badge] + lines).joined(separator: "\n"), compactLeading: typeName, compactTrailing: "",
            expanded: lines.joined(separator: "\n"))
    }
}
