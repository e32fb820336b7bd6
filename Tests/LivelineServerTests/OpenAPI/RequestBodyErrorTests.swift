import Foundation
import LivelineCrypto
import LivelineModel
import LivelineTesting
import Testing

/// Every request body the API takes — enumerated from `/openapi.json`, so a body added later is
/// covered without a word here — sent with a wrong enum value, a value of a wrong type and a
/// required key left out, at every key of it: each is refused naming the field and what it must
/// be, in the API's words, never in Swift's (`DecodingProblem`, `RequestSchema`).
@Suite struct RequestBodyErrorTests {
    /// What Foundation and Swift say of a value that does not decode; no answer may hold any.
    static let swiftPhrases = [
        "Cannot initialize", "Expected to decode", "No value associated", "but found", "Debug description", "debugDescription",
        "ISO8601", "not valid JSON.", "Dictionary<", "Array<", "Swift.", "Optional(", "CodingKeys", "DecodingError", "typeMismatch",
        "keyNotFound", "valueNotFound", "dataCorrupted", "JSONValue", "AlertText", "LiveActivityAlert", "WebPushSubscription",
    ]
    /// A Swift type name of a body or of a value in one (`PushTokenKind`, `StartTripRequest`).
    static var swiftTypeName: Regex<(Substring, Substring)> { /\b[A-Z][A-Za-z]*(Request|Report|Kind|Environment|Answers)\b/ }

    /// One body sent wrong, and what its refusal must say.
    struct Case {
        var what: String
        var body: JSONValue
        /// The field the refusal names (`alert.title`, `userIds[0]`).
        var field: String
        /// Words the message must hold: what the field must be.
        var expected: [String]
    }

    @Test func everyDocumentedBodyIsRefusedNamingTheFieldAndWhatItMustBeInTheAPIsWords() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let document = try JSONValue(json: Data(try server.request("GET", "/openapi.json").text.utf8))
        let components = try #require(document.objectValue?["components"]?.objectValue?["schemas"]?.objectValue)
        let paths = try #require(document.objectValue?["paths"]?.objectValue)
        let samples = try Samples(components: components)

        var bodies: [String] = []
        var counts = (enums: 0, types: 0, missing: 0)
        /// The bodies that have a key of listed values, a required key: each must have had its case.
        var expected = (enums: Set<String>(), missing: Set<String>())
        var tried = (enums: Set<String>(), types: Set<String>(), missing: Set<String>())
        for (template, operations) in paths.sorted(by: { $0.key < $1.key }) {
            for (method, operation) in (operations.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard
                    let body = operation.objectValue?["requestBody"]?.objectValue?["content"]?.objectValue?["application/json"]?
                        .objectValue?["schema"]
                else { continue }
                let route = "\(method.uppercased()) \(template)"
                bodies.append(route)
                let path = try samples.path(template, parameters: operation.objectValue?["parameters"])
                let admin = operation.objectValue?["security"]?.compactText.contains("admin") == true
                let token = admin ? server.app.adminKey : bearer

                // The sample gets past every field check: what refuses a case below is that case's field.
                let base = try samples.value(body)
                if samples.hasListedValues(body) { expected.enums.insert(route) }
                if samples.hasRequiredKeys(body) { expected.missing.insert(route) }
                let sample = try server.request(method.uppercased(), path, token: token, json: base.compactText)
                #expect(sample.status != 400, "\(route): the sample \(base.compactText) is refused: \(sample.text)")

                for item in samples.cases(body, base) {
                    if item.what.hasPrefix("wrong enum") { (counts.enums, _) = (counts.enums + 1, tried.enums.insert(route)) }
                    if item.what.hasPrefix("wrong type") { (counts.types, _) = (counts.types + 1, tried.types.insert(route)) }
                    if item.what.hasPrefix("missing") { (counts.missing, _) = (counts.missing + 1, tried.missing.insert(route)) }
                    let answer = try server.request(method.uppercased(), path, token: token, json: item.body.compactText)
                    let context = "\(route), \(item.what): \(item.body.compactText) → \(answer.status) \(answer.text)"
                    #expect([400, 422].contains(answer.status), "\(context)")
                    let error = answer.json?["error"] as? [String: Any]
                    let message = error?["message"] as? String ?? ""
                    #expect(error?["field"] as? String == item.field, "\(context)")
                    #expect(message.contains(item.field), "\(context): the message names no field")
                    for word in item.expected { #expect(message.contains(word), "\(context): the message lacks '\(word)'") }
                    for phrase in Self.swiftPhrases { #expect(!message.contains(phrase), "\(context): Swift's '\(phrase)'") }
                    #expect(message.firstMatch(of: Self.swiftTypeName) == nil, "\(context): a Swift type name")
                }
            }
        }
        // Every body of the core and of the features, each sent wrong in every way its keys allow.
        print(
            "RequestBodyErrorTests: \(bodies.count) bodies; cases: \(counts); with listed values: \(expected.enums.sorted()); with required keys: \(expected.missing.count)"
        )
        #expect(bodies.count >= 23, "\(bodies)")
        #expect(tried.types == Set(bodies), "no wrong type sent to \(Set(bodies).subtracting(tried.types))")
        #expect(tried.missing == expected.missing, "no required key left out of \(expected.missing.subtracting(tried.missing))")
        #expect(tried.enums == expected.enums, "no wrong enum value sent to \(expected.enums.subtracting(tried.enums))")
        #expect(expected.enums.count >= 7 && expected.missing.count >= 13, "\(expected)")
    }

    /// Bodies made from the document's schemas: a sample every field check takes, and the cases
    /// that get each key of it wrong.
    struct Samples {
        let components: [String: JSONValue]
        /// A P-256 public key (a web-push subscription's `keys.p256dh`).
        let p256: String

        init(components: [String: JSONValue]) throws {
            self.components = components
            p256 = Base64URL.encode(try ES256PrivateKey.generate().publicKey.uncompressed)
        }

        /// `schema` with its `$ref` followed and, for a choice, its first alternative that is not
        /// `null` (the one the sample takes).
        func resolve(_ schema: JSONValue) -> JSONValue {
            guard let fields = schema.objectValue else { return schema }
            if let target = fields["$ref"]?.stringValue, let named = components[String(target.split(separator: "/").last ?? "")] {
                return resolve(named)
            }
            if fields["type"] == nil, fields["enum"] == nil, fields["const"] == nil {
                for key in ["oneOf", "anyOf"] {
                    if case .array(let alternatives)? = fields[key] { return alternatives.map(resolve).first { types($0) != ["null"] } ?? .null }
                }
            }
            return schema
        }

        /// Every alternative a value at this place may take (`null` left out), `$ref`s followed.
        func alternatives(_ schema: JSONValue) -> [JSONValue] {
            guard let fields = schema.objectValue else { return [] }
            if let target = fields["$ref"]?.stringValue, let named = components[String(target.split(separator: "/").last ?? "")] {
                return alternatives(named)
            }
            if fields["type"] == nil, fields["enum"] == nil, fields["const"] == nil {
                for key in ["oneOf", "anyOf"] {
                    if case .array(let choices)? = fields[key] { return choices.flatMap(alternatives).filter { types($0) != ["null"] } }
                }
            }
            return [schema]
        }

        func types(_ schema: JSONValue) -> [String] {
            switch schema.objectValue?["type"] {
            case .string(let type)?: [type]
            case .array(let types)?: types.compactMap(\.stringValue)
            default: []
            }
        }

        /// The values an `enum` or `const` allows.
        func values(_ schema: JSONValue) -> [JSONValue] {
            if case .array(let values)? = schema.objectValue?["enum"] { return values }
            return schema.objectValue?["const"].map { [$0] } ?? []
        }

        /// A valid value of `schema`: every property of an object, one element in an array.
        func value(_ schema: JSONValue) throws -> JSONValue {
            let schema = resolve(schema)
            let fields = schema.objectValue ?? [:]
            if let first = values(schema).first { return first }
            // A body whose validity no schema keyword can state (a contract file) gives an example.
            if case .array(let examples)? = fields["examples"], let example = examples.first { return example }
            switch types(schema).first(where: { $0 != "null" }) {
            case "object":
                var members: [String: JSONValue] = [:]
                for (name, property) in fields["properties"]?.objectValue ?? [:] { members[name] = try value(property) }
                return .object(members)
            case "array":
                return .array(try fields["items"].map { [try value($0)] } ?? [])
            case "integer":
                let minimum: Int? = if case .int(let low)? = fields["minimum"] { low } else { nil }
                return .int(max(minimum ?? 1, 1))
            case "number":
                let low = fields["minimum"]?.numberValue ?? 1
                return .double(fields["maximum"]?.numberValue.map { (low + $0) / 2 } ?? low)
            case "boolean":
                return .bool(true)
            case "string":
                return .string(try text(fields))
            default:
                return .object([:])  // any JSON (a content state's own schema says more)
            }
        }

        /// A string valid for a string schema's format, pattern and length.
        func text(_ fields: [String: JSONValue]) throws -> String {
            switch fields["format"]?.stringValue {
            // An hour ahead: a start's `at` must lie ahead of the server's clock (not too far).
            case "date-time"?: return Date().addingTimeInterval(3600).formatted(.iso8601)
            case "date"?: return "2026-01-05"
            case let format?: throw Unknown(what: "format \(format): add a sample for it")
            case nil: break
            }
            let length = (fields["minLength"]?.numberValue.map(Int.init) ?? 0)...(fields["maxLength"]?.numberValue.map(Int.init) ?? .max)
            let pattern = try fields["pattern"]?.stringValue.map { try NSRegularExpression(pattern: $0) }
            let candidates = [
                "Milch", "trip:42", "aabbccddeeff00112233445566778899", "AAAAAAAAAAAAAAAAAAAAAA", "cs_a1b2", "/cook-suggest/cs_abc",
                "https://push.example.net/send/abc123", p256, "2026-01-05",
            ]
            for candidate in candidates {
                let range = NSRange(candidate.startIndex..., in: candidate)
                if length.contains(candidate.count), pattern.map({ $0.firstMatch(in: candidate, range: range) != nil }) ?? true { return candidate }
            }
            throw Unknown(what: "no sample string for \(JSONValue.object(fields).compactText): add one")
        }

        /// `template` with each path parameter a valid value of its schema.
        func path(_ template: String, parameters: JSONValue?) throws -> String {
            var path = template
            for case .object(let parameter) in Self.elements(parameters)
            where parameter["in"]?.stringValue == "path" {
                let name = try #require(parameter["name"]?.stringValue)
                let value = try value(try #require(parameter["schema"]))
                path = path.replacingOccurrences(of: "{\(name)}", with: value.stringValue ?? value.compactText)
            }
            return path
        }

        /// The cases of the body `schema` whose valid sample is `base`: at each key, a value of a
        /// wrong type; at each required key, none; at each key of listed values, another one —
        /// in nested objects and in the first element of arrays too.
        func cases(_ schema: JSONValue, _ base: JSONValue, at path: [DecodingProblem.Step] = []) -> [Case] {
            let schema = resolve(schema)
            let fields = schema.objectValue ?? [:]
            var out: [Case] = []
            let required = Set(Self.elements(fields["required"]).compactMap(\.stringValue))
            for (name, property) in (fields["properties"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                let place = path + [.key(name)]
                let field = Self.text(place)
                let expected = expectation(property)
                out.append(Case(what: "wrong type at \(field)", body: Self.set(base, place, wrongType(property)), field: field, expected: expected))
                if required.contains(name) {
                    out.append(Case(what: "missing \(field)", body: Self.set(base, place, nil), field: field, expected: expected))
                }
                if isListed(property) {
                    out.append(
                        Case(what: "wrong enum at \(field)", body: Self.set(base, place, .string("complication")), field: field, expected: expected))
                }
                let member = DecodingProblem.value(at: place, in: base)
                if case .object = member {
                    out += cases(property, base, at: place)
                } else if case .array(let elements)? = member, !elements.isEmpty, let items = resolve(property).objectValue?["items"] {
                    let element = place + [.index(0)]
                    let text = Self.text(element)
                    out.append(
                        Case(
                            what: "wrong type at \(text)", body: Self.set(base, element, wrongType(items)), field: text, expected: expectation(items))
                    )
                    if isListed(items) {
                        out.append(
                            Case(
                                what: "wrong enum at \(text)", body: Self.set(base, element, .string("complication")), field: text,
                                expected: expectation(items)))
                    }
                    if case .object = elements[0] { out += cases(items, base, at: element) }
                }
            }
            return out
        }

        /// Whether a value at this place is one of listed strings (an `enum` or a `const`).
        func isListed(_ schema: JSONValue) -> Bool {
            let choices = alternatives(schema)
            return !choices.isEmpty && choices.allSatisfy { !values($0).isEmpty && types($0).contains("string") }
        }

        /// Whether `schema` (a body), or an object in it, has a key of listed strings.
        func hasListedValues(_ schema: JSONValue, depth: Int = 0) -> Bool {
            guard depth < 8 else { return false }
            return alternatives(schema).prefix(1).contains { choice in
                let fields = choice.objectValue ?? [:]
                if let items = fields["items"], isListed(items) || hasListedValues(items, depth: depth + 1) { return true }
                return (fields["properties"]?.objectValue ?? [:]).values.contains { isListed($0) || hasListedValues($0, depth: depth + 1) }
            }
        }

        /// Whether `schema` (a body) has a required key.
        func hasRequiredKeys(_ schema: JSONValue) -> Bool {
            !Self.elements(resolve(schema).objectValue?["required"]).isEmpty
        }

        /// A value of a JSON type `schema` does not allow.
        func wrongType(_ schema: JSONValue) -> JSONValue {
            let allowed = Set(alternatives(schema).flatMap { types($0).isEmpty && values($0).isEmpty ? ["any"] : types($0) + values($0).map(kind) })
            for (type, value) in [
                ("integer", JSONValue.int(12345)), ("string", .string("12345")), ("boolean", .bool(true)), ("object", .object([:])),
            ]
            where !allowed.contains(type) && !(type == "integer" && allowed.contains("number")) {
                return value
            }
            return .array([])
        }

        func kind(_ value: JSONValue) -> String {
            switch value {
            case .string: "string"
            case .int: "integer"
            case .double: "number"
            case .bool: "boolean"
            default: "any"
            }
        }

        /// Words a refusal of a value at this place must hold: each listed value, or each
        /// alternative's description, or its type in words.
        func expectation(_ schema: JSONValue) -> [String] {
            let choices = alternatives(schema)
            if choices.allSatisfy({ !values($0).isEmpty }) { return choices.flatMap(values).map { $0.stringValue ?? $0.compactText } }
            return choices.map { choice in
                // A description's gist: what comes before its first remark in parentheses.
                if let description = choice.objectValue?["description"]?.stringValue {
                    return String(description[..<(description.range(of: " (")?.lowerBound ?? description.endIndex)])
                }
                switch (types(choice).first, choice.objectValue?["format"]?.stringValue) {
                case ("string"?, "date"?): return "YYYY-MM-DD"
                case ("string"?, "date-time"?): return "RFC 3339"
                case ("string"?, _): return "string"
                case ("integer"?, _): return "whole number"
                case ("number"?, _): return "number"
                case ("boolean"?, _): return "true or false"
                case ("array"?, _): return "array"
                case ("object"?, _): return "object"
                default: return ""
                }
            }
        }

        /// `document` with the value at `path` set to `value` (nil: removed).
        static func set(_ document: JSONValue, _ path: [DecodingProblem.Step], _ value: JSONValue?) -> JSONValue {
            guard let step = path.first else { return value ?? .null }
            switch (step, document) {
            case (.key(let key), .object(var members)):
                if path.count == 1, value == nil {
                    members[key] = nil
                } else {
                    members[key] = set(members[key] ?? .null, Array(path.dropFirst()), value)
                }
                return .object(members)
            case (.index(let index), .array(var items)) where items.indices.contains(index):
                items[index] = set(items[index], Array(path.dropFirst()), value)
                return .array(items)
            default:
                return document
            }
        }

        /// The elements of an array value; none for anything else.
        static func elements(_ value: JSONValue?) -> [JSONValue] {
            if case .array(let items)? = value { items } else { [] }
        }

        static func text(_ path: [DecodingProblem.Step]) -> String {
            DecodingProblem(path: path, kind: .invalid).keyPath
        }
    }

    struct Unknown: Error, CustomStringConvertible {
        var what: String
        var description: String { what }
    }
}
