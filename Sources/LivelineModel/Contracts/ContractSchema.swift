/// The shape of one contract: the keys of its static attributes and of its content state.
///
/// It describes what the Swift types decode; tests pin that the two agree (every key is encoded,
/// a missing required key fails to decode, a missing optional one does not).
public struct ContractSchema: Sendable, Hashable {
    /// Keys of `attributes` (sent with `start` only).
    public var attributes: [ContractField]
    /// Keys of `content-state` (sent with every event).
    public var contentState: [ContractField]

    public init(attributes: [ContractField], contentState: [ContractField]) {
        self.attributes = attributes
        self.contentState = contentState
    }

    /// The nested object types the fields use (e.g. `OpenItem`), each once, in order of appearance.
    public var nestedObjects: [(name: String, fields: [ContractField])] {
        var seen: Set<String> = []
        var out: [(name: String, fields: [ContractField])] = []
        func visit(_ type: ContractField.FieldType) {
            switch type {
            case .array(let element):
                visit(element)
            case .object(let name, let fields):
                if seen.insert(name).inserted {
                    out.append((name, fields))
                    fields.forEach { visit($0.type) }
                }
            default:
                break
            }
        }
        (attributes + contentState).forEach { visit($0.type) }
        return out
    }
}
