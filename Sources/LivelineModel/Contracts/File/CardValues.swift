import Foundation

/// The values a ``CardTemplate`` fills in: a placeholder's key looked up in the content state or
/// the attributes and written as text (`docs/contracts.md`, "Contract files").
struct CardValues {
    let attributes: [String: JSONValue]
    let contentState: [String: JSONValue]
    let attributeDates: Set<String>
    let contentStateDates: Set<String>

    init(attributes: JSONValue, contentState: JSONValue, schema: ContractSchema?) {
        self.attributes = attributes.objectValue ?? [:]
        self.contentState = contentState.objectValue ?? [:]
        attributeDates = Set((schema?.attributes ?? []).filter { $0.type == .date }.map(\.key))
        contentStateDates = Set((schema?.contentState ?? []).filter { $0.type == .date }.map(\.key))
    }

    /// `template` with every placeholder replaced by its value.
    func fill(_ template: String) -> String {
        CardTemplate.segments(of: template).segments.map { segment in
            switch segment {
            case .text(let text): text
            case .contentState(let key): Self.text(of: contentState[key], isDate: contentStateDates.contains(key))
            case .attribute(let key): Self.text(of: attributes[key], isDate: attributeDates.contains(key))
            }
        }.joined()
    }

    /// A value as a card shows it: `–` when missing or null, text unquoted, a date as `HH:MM`.
    static func text(of value: JSONValue?, isDate: Bool) -> String {
        switch value {
        case nil, .null: "–"
        case .string(let text): text
        case .int, .double:
            if isDate, let seconds = value?.numberValue { time(secondsSinceReferenceDate: seconds) } else { value?.compactText ?? "–" }
        case let value?: value.compactText
        }
    }

    /// The UTC time of day of a `Date` (seconds since 2001-01-01 00:00:00 UTC, a day boundary):
    /// `14:05`, seconds left out; a number beyond about 30 million years as itself.
    static func time(secondsSinceReferenceDate seconds: Double) -> String {
        guard abs(seconds) < 1e15 else { return JSONValue.double(seconds).compactText }
        let minutes = (Int((seconds / 60).rounded(.down)) % 1440 + 1440) % 1440
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : String(number) }
        return two(minutes / 60) + ":" + two(minutes % 60)
    }
}
