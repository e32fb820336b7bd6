import Foundation
import LivelineEngine
import LivelineModel
import LivelineStore

extension Dashboard {
    /// `/dashboard/contracts`: every contract the server checks pushes against, each version of it
    /// with the devices whose app was built with it, and its keys.
    ///
    /// A compiled-in contract has one version; one brought at run time has every version stored
    /// (`docs/contracts.md`, "Versioning and compatibility"). A device counts for the version
    /// whose fingerprint its app registered an active push-to-start or update token of the type
    /// with (``ContractLibrary/installed(_:)``); devices whose app did not say count apart, and so
    /// does a fingerprint no version has. A version no device has is listed with 0.
    func contractsPage(now: Date) throws -> PageContent {
        var main: HTML = "<h1>Contracts</h1>\n"
        main += """
            <p class="note">The Live Activity types this server checks pushes against, compiled in or brought by an app at run time, \
            and the versions the apps in the field were built with: a device counts for the version whose fingerprint its app \
            registered a push-to-start or update token with. Apps that did not say count as “version not told”.</p>
            """
        for (index, contract) in engine.contracts.contracts.enumerated() {
            main += try contractSection(contract, index: index, now: now)
        }
        return PageContent(title: "Contracts", main: main, events: "/dashboard/events?page=contracts")
    }

    /// One contract: where it comes from, its current version, its versions with their devices,
    /// and its keys.
    func contractSection(_ contract: AnyContract, index: Int, now: Date) throws -> HTML {
        let heading = "h-contract-\(index)"
        var html: HTML = "<section class=\"panel\" aria-labelledby=\(Markup.quoted(heading))>"
        html += "<h2 id=\(Markup.quoted(heading))>\(contract.typeName)</h2>"
        html += Markup.facts([
            ("from", Self.origin(contract.origin)), ("current version", "\(contract.version)"),
            ("fingerprint", "<code>\(contract.fingerprint)</code>"),
        ])
        html += Markup.table(
            caption: "Versions of \(contract.typeName) and the devices whose app was built with each",
            columns: ["version", "fingerprint", "added", "from", "devices"], rows: try versionRows(contract, now: now), empty: "",
            rowHeaders: true)
        html += Self.keys(of: contract)
        return html + "</section>"
    }

    /// A row per version (a compiled-in contract's one, else every stored one, oldest first), a
    /// row per fingerprint in the field that is no version, and the devices that did not say.
    func versionRows(_ contract: AnyContract, now: Date) throws -> [[HTML]] {
        var devices: [String?: Int] = [:]
        for installed in try engine.library.installed(contract.typeName) { devices[installed.fingerprint, default: 0] += installed.devices }
        func take(_ fingerprint: String?) -> HTML { "\(devices.removeValue(forKey: fingerprint) ?? 0)" }
        var rows: [[HTML]]
        if contract.origin == .swiftType {
            rows = [
                ["\(contract.version)", "<code>\(contract.fingerprint)</code>", "built into this server", "compiled in", take(contract.fingerprint)]
            ]
        } else {
            rows = try engine.library.versions(of: contract.typeName).map { record in
                [
                    "\(record.version)", "<code>\(record.fingerprint)</code>", Markup.time(record.createdAt, now: now),
                    Self.origin(ContractLibrary.origin(of: record)), take(record.fingerprint),
                ]
            }
        }
        let untold = take(nil)
        // Fingerprints of no version: a compiled-in shape of an older build of this server.
        for fingerprint in devices.keys.compactMap({ $0 }).sorted() {
            rows.append(["unknown version", "<code>\(fingerprint)</code>", "", "", take(fingerprint)])
        }
        rows.append(["version not told", "", "", "", untold])
        return rows
    }

    /// Where a contract comes from, in words; a file by its name.
    static func origin(_ origin: AnyContract.Origin) -> HTML {
        switch origin {
        case .swiftType: "compiled in"
        case .file(let name): "contract file <code>\(name)</code>"
        case .api: "the API"
        }
    }

    /// The contract's keys (what `liveline contracts show` prints) as tables in a closed
    /// `<details>`: the static attributes, the content state, each nested object, and the cases
    /// of each enum.
    static func keys(of contract: AnyContract) -> HTML {
        let schema = contract.schema
        let columns = ["key", "type", "presence", "since", "meaning"]
        var tables = Markup.table(
            caption: "Static attributes (sent with start only)", columns: columns, rows: keyRows(schema.attributes),
            empty: "No static attributes.", rowHeaders: true)
        tables += Markup.table(
            caption: "Content state (sent with every event)", columns: columns, rows: keyRows(schema.contentState),
            empty: "No content-state keys.", rowHeaders: true)
        for (name, fields) in schema.nestedObjects {
            tables += Markup.table(caption: "\(name) (a nested object)", columns: columns, rows: keyRows(fields), empty: "No keys.", rowHeaders: true)
        }
        let enums = enumerations(schema)
        if !enums.isEmpty {
            tables += Markup.facts(enums.map { name, cases in ("\(name) (a string)", HTML(text: cases.joined(separator: ", "))) })
        }
        return "<details><summary>Keys of \(contract.typeName)</summary>\(tables)</details>"
    }

    static func keyRows(_ fields: [ContractField]) -> [[HTML]] {
        fields.map { field in
            [
                "<code>\(field.key)</code>", "<code>\(field.type.description)</code>", field.isOptional ? "optional" : "required", "\(field.since)",
                "\(field.summary)",
            ]
        }
    }

    /// The enums the keys use, nested objects' and arrays' included, each once in order of use.
    static func enumerations(_ schema: ContractSchema) -> [(name: String, cases: [String])] {
        func element(_ type: ContractField.FieldType) -> ContractField.FieldType {
            if case .array(let inner) = type { element(inner) } else { type }
        }
        var seen: Set<String> = []
        var found: [(name: String, cases: [String])] = []
        for field in schema.attributes + schema.contentState + schema.nestedObjects.flatMap(\.fields) {
            if case .enumeration(let name, let cases) = element(field.type), seen.insert(name).inserted { found.append((name, cases)) }
        }
        return found
    }
}
