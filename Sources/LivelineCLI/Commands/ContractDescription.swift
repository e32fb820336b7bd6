import Foundation
import LivelineModel

/// The text of `liveline contracts show TYPE`: keys, types, optionality, an example payload.
enum ContractDescription {
    static func text(of contract: AnyContract, now: Date) -> String {
        var lines = ["\(contract.typeName) (contract version \(contract.version))", ""]
        lines.append("attributes (static, sent with start only):")
        lines += table(contract.schema.attributes)
        lines.append("")
        lines.append("content-state (sent with start, update, end and broadcast):")
        lines += table(contract.schema.contentState)
        for (name, fields) in contract.schema.nestedObjects {
            lines.append("")
            lines.append("\(name):")
            lines += table(fields)
        }
        for field in contract.schema.attributes + contract.schema.contentState {
            if case .enumeration(let name, let cases) = field.type {
                lines.append("")
                lines.append("\(name) (a string): \(cases.joined(separator: ", "))")
            }
        }
        lines.append("")
        lines.append("Keys are the Swift property names; the phone decodes them with a default JSONDecoder.")
        lines.append("Optional keys (Type?) are sent as null when empty. A Date is a JSON number of seconds")
        lines.append("since 2001-01-01 00:00:00 UTC (not ISO text, not UNIX seconds).")
        lines.append("")
        lines.append("Example start payload:")
        lines.append(examplePayload(contract, now: now))
        return lines.joined(separator: "\n")
    }

    static func table(_ fields: [ContractField]) -> [String] {
        let keyWidth = max(3, fields.map(\.key.count).max() ?? 0) + 2
        let typeWidth = max(4, fields.map(\.typeDescription.count).max() ?? 0) + 2
        func row(_ key: String, _ type: String, _ need: String, _ summary: String) -> String {
            "  " + key.padding(toLength: keyWidth, withPad: " ", startingAt: 0)
                + type.padding(toLength: typeWidth, withPad: " ", startingAt: 0)
                + need.padding(toLength: 10, withPad: " ", startingAt: 0) + summary
        }
        return [row("KEY", "TYPE", "PRESENCE", "MEANING")]
            + fields.map {
                row($0.key, $0.typeDescription, $0.isOptional ? "optional" : "required", $0.summary)
            }
    }

    static func examplePayload(_ contract: AnyContract, now: Date) -> String {
        let alert: JSONValue = .object(["title": .string("Live Activity started")])
        let aps: JSONValue = .object([
            "timestamp": .int(Int(now.timeIntervalSince1970)), "event": .string(LiveActivityEvent.start.rawValue),
            "attributes-type": .string(contract.typeName), "attributes": contract.exampleAttributes,
            "content-state": contract.exampleContentState, "alert": alert,
        ])
        let pretty = try? JSONSerialization.data(
            withJSONObject: JSONSerialization.jsonObject(with: JSONValue.object(["aps": aps]).compactJSON),
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return pretty.map { String(decoding: $0, as: UTF8.self) } ?? "(could not encode the example)"
    }
}
