import Foundation
import LivelineModel

/// The rules every contract keeps (`docs/contracts.md`, "Versioning and compatibility"), checked
/// for one type against its golden fixtures: a built-in feature's model tests call it for its
/// contract, a backend built on Liveline for its own. Each check returns its problems, empty when
/// the rule holds.
public enum ContractChecks {
    /// Every problem of `C` against `fixtures` (a folder of `<TypeName>/v<N>.json`), at `now`.
    public static func problems<C: LiveActivityContract>(_: C.Type, fixtures: URL, now: Date) -> [String] {
        var problems: [String] = []
        let checks: [(C.Type, URL, Date) throws -> [String]] = [
            versionsHaveFixtures, currentFixtureRoundTrips, olderFixturesDecodeAndKeysAreStillSent, fixtureWithoutOptionalsDecodes,
        ]
        for check in checks {
            do {
                problems += try check(C.self, fixtures, now)
            } catch {
                problems.append("\(C.typeName): \(error)")
            }
        }
        problems += laterFieldsAreOptional(C.self) + codingMatchesSchema(C.self)
        let examples = C.checkContentState(json: encoded(C.exampleContentState), now: now) + C.checkAttributes(json: encoded(C.example), now: now)
        problems += examples.map { "\(C.typeName): the example fails the key-by-key check: \($0)" }
        return problems
    }

    /// The bytes of `<fixtures>/<TypeName>/v<version>.json`.
    public static func fixture(_ typeName: String, version: Int, in fixtures: URL) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(typeName).appendingPathComponent("v\(version).json"))
    }

    /// The versions that have a fixture for `typeName`, ascending.
    public static func versions(_ typeName: String, in fixtures: URL) throws -> [Int] {
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent(typeName).path)
        return names.compactMap { name in
            guard name.hasPrefix("v"), name.hasSuffix(".json") else { return nil }
            return Int(name.dropFirst().dropLast(5))
        }.sorted()
    }

    /// Every rule for `C`: ``problems(_:fixtures:now:)``, its name is its type's, its v1 fixture
    /// is one of `examples` (``fixtureIsAnExample(_:fixtures:examples:)``), and its schema is the
    /// one its Swift types decode (``schemaIsDerived(_:)``).
    public static func everyRule<C: LiveActivityContract>(_ type: C.Type, fixtures: URL, examples: URL, now: Date) throws -> [String] {
        let named = String(describing: C.self) == C.typeName ? [] : ["\(C.self) is named \(C.typeName), not its type's name"]
        return named + problems(type, fixtures: fixtures, now: now) + (try fixtureIsAnExample(type, fixtures: fixtures, examples: examples))
            + (try schemaIsDerived(type))
    }

    /// The hand-written schema of `C` is the one derived from its Swift types: the same keys in
    /// the same order, types, nested names, raw values and optionality (`since` and `summary`
    /// cannot be derived; docs/contracts.md, "Deriving a contract's shape from its Swift types").
    public static func schemaIsDerived<C: LiveActivityContract>(_: C.Type) throws -> [String] {
        let derived = try ContractSchema(deriving: C.self)
        let written = C.schema.shape
        var problems: [String] = []
        if derived.attributes != written.attributes {
            problems.append("\(C.typeName): its attributes decode as \(derived.attributes), its schema says \(written.attributes)")
        }
        if derived.contentState != written.contentState {
            problems.append("\(C.typeName): its content state decodes as \(derived.contentState), its schema says \(written.contentState)")
        }
        return problems
    }

    /// This repository's `examples/payloads`, found from the path of a test file two folders
    /// below the repository's `Tests` (`Tests/<Target>/<Folder>/<File>.swift`).
    public static func examples(besideTestFile path: String) -> URL {
        var url = URL(fileURLWithPath: path)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("examples/payloads")
    }

    /// The v1 fixture has exactly one identical copy among `examples` (`examples/payloads`, the
    /// files users run `liveline contracts check` on).
    public static func fixtureIsAnExample<C: LiveActivityContract>(_: C.Type, fixtures: URL, examples: URL) throws -> [String] {
        let fixture = try JSONValue(json: fixture(C.typeName, version: 1, in: fixtures))
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".json") }
        let matches = try files.filter { try JSONValue(json: Data(contentsOf: examples.appendingPathComponent($0))) == fixture }
        return matches.count == 1 ? [] : ["\(C.typeName): the v1 fixture has \(matches.count) copies in \(examples.path), not 1"]
    }

    // MARK: The fixtures

    static func versionsHaveFixtures<C: LiveActivityContract>(_: C.Type, _ fixtures: URL, _ now: Date) throws -> [String] {
        let versions = try versions(C.typeName, in: fixtures)
        return versions == Array(1...C.version) ? [] : ["\(C.typeName): fixtures of versions \(versions), not 1…\(C.version)"]
    }

    static func currentFixtureRoundTrips<C: LiveActivityContract>(_: C.Type, _ fixtures: URL, _ now: Date) throws -> [String] {
        let fixture = try fixture(C.typeName, version: C.version, in: fixtures)
        let payload = try JSONDecoder().decode(LiveActivityPayload<C>.self, from: fixture)
        let same = try JSONValue(json: payload.encoded()) == JSONValue(json: fixture)
        return same ? [] : ["\(C.typeName): the v\(C.version) fixture does not re-encode to the same JSON"]
    }

    static func olderFixturesDecodeAndKeysAreStillSent<C: LiveActivityContract>(_: C.Type, _ fixtures: URL, _ now: Date) throws -> [String] {
        let current = try JSONValue(
            json: LiveActivityPayload<C>.start(
                attributes: C.example, contentState: C.exampleContentState, alert: LiveActivityAlert(title: "t"), timestamp: now
            ).encoded())
        var problems: [String] = []
        for version in try versions(C.typeName, in: fixtures) {
            let fixture = try fixture(C.typeName, version: version, in: fixtures)
            // An older payload (sent by an older server, or stored) decodes with today's type.
            if (try? JSONDecoder().decode(LiveActivityPayload<C>.self, from: fixture)) == nil {
                problems.append("\(C.typeName): the v\(version) fixture no longer decodes")
            }
            // An older app decodes today's payload only if every key it knew is still sent.
            let old = try JSONValue(json: fixture)
            for member in ["content-state", "attributes"] {
                let oldKeys = Set(old.objectValue?["aps"]?.objectValue?[member]?.objectValue?.keys ?? [:].keys)
                let newKeys = Set(current.objectValue?["aps"]?.objectValue?[member]?.objectValue?.keys ?? [:].keys)
                if !oldKeys.isSubset(of: newKeys) {
                    problems.append("\(C.typeName): v\(version) \(member) keys no longer sent: \(oldKeys.subtracting(newKeys).sorted())")
                }
            }
        }
        return problems
    }

    /// A newer optional field is absent in an older payload: the v1 fixture without its optional
    /// keys still decodes.
    static func fixtureWithoutOptionalsDecodes<C: LiveActivityContract>(_: C.Type, _ fixtures: URL, _ now: Date) throws -> [String] {
        guard case .object(var root) = try JSONValue(json: fixture(C.typeName, version: 1, in: fixtures)),
            case .object(var aps) = root["aps"]
        else { return ["\(C.typeName): the v1 fixture has no aps object"] }
        for (member, fields) in [("content-state", C.schema.contentState), ("attributes", C.schema.attributes)] {
            guard case .object(var inner) = aps[member] else { continue }
            for field in fields where field.isOptional { inner[field.key] = nil }
            aps[member] = .object(inner)
        }
        root["aps"] = .object(aps)
        let decoded = try? JSONDecoder().decode(LiveActivityPayload<C>.self, from: JSONValue.object(root).compactJSON)
        return decoded?.attributes != nil ? [] : ["\(C.typeName): the v1 fixture without its optional keys does not decode"]
    }

    // MARK: The type

    static func laterFieldsAreOptional<C: LiveActivityContract>(_: C.Type) -> [String] {
        let fields = C.schema.attributes + C.schema.contentState
        var problems = fields.filter { $0.since > 1 && !$0.isOptional }.map {
            "\(C.typeName).\($0.key) was added in v\($0.since) and must be optional"
        }
        problems += fields.filter { !(1...C.version).contains($0.since) }.map { "\(C.typeName).\($0.key): since v\($0.since) is no version" }
        return problems
    }

    /// The keys encoded are exactly the schema's; a key missing fails to decode exactly when the
    /// schema says it is required; an empty optional is sent as `null`.
    static func codingMatchesSchema<C: LiveActivityContract>(_: C.Type) -> [String] {
        var problems: [String] = []
        let state = object(C.exampleContentState)
        let attributes = object(C.example)
        if Set(state.keys) != Set(C.schema.contentState.map(\.key)) { problems.append("\(C.typeName).ContentState: keys \(state.keys.sorted())") }
        if Set(attributes.keys) != Set(C.schema.attributes.map(\.key)) { problems.append("\(C.typeName): keys \(attributes.keys.sorted())") }
        for field in C.schema.contentState where decodes(C.ContentState.self, state, without: field.key) != field.isOptional {
            problems.append("\(C.typeName).ContentState.\(field.key): optional is \(field.isOptional) in the schema, not in the type")
        }
        for field in C.schema.attributes where decodes(C.self, attributes, without: field.key) != field.isOptional {
            problems.append("\(C.typeName).\(field.key): optional is \(field.isOptional) in the schema, not in the type")
        }
        var nulled = state
        for field in C.schema.contentState where field.isOptional { nulled[field.key] = .null }
        if let decoded = try? JSONDecoder().decode(C.ContentState.self, from: JSONValue.object(nulled).compactJSON) {
            let again = object(decoded)
            for field in C.schema.contentState where field.isOptional && again[field.key] != .null {
                problems.append("\(C.typeName).ContentState.\(field.key) must be sent as null, not left out")
            }
        } else {
            problems.append("\(C.typeName).ContentState: null optionals do not decode")
        }
        return problems
    }

    static func encoded(_ value: some Encodable) -> Data {
        (try? JSONEncoder().encode(value)) ?? Data()
    }

    static func object(_ value: some Encodable) -> [String: JSONValue] {
        (try? JSONValue(json: encoded(value)))?.objectValue ?? [:]
    }

    static func decodes<T: Decodable>(_: T.Type, _ object: [String: JSONValue], without key: String) -> Bool {
        var copy = object
        copy[key] = nil
        return (try? JSONDecoder().decode(T.self, from: JSONValue.object(copy).compactJSON)) != nil
    }
}
