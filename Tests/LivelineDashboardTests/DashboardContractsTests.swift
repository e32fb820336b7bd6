import Foundation
import LivelineModel
import LivelineTestSupport
import Testing

/// `/dashboard/contracts`, through a real server's router and handlers: every contract the server
/// knows, each version with the devices whose app was built with it, and its keys
/// (`docs/contracts.md`, "Versioning and compatibility").
@Suite struct DashboardContractsTests {
    /// The rows of the versions table in the section of `type`, each cell as text (tags removed,
    /// entities as they are).
    static func versionRows(_ page: String, type: String) throws -> [[String]] {
        let start = try #require(page.range(of: ">\(type)</h2>"), "no section of \(type)")
        let section = page[start.upperBound...]
        let body = try #require(section.range(of: "<tbody>"))
        let end = try #require(section.range(of: "</tbody>"))
        return section[body.upperBound..<end.lowerBound].split(separator: "\n").map { row in
            row.matches(of: /<t[hd][^>]*>(.*?)<\/t[hd]>/).map { String($0.output.1).replacing(/<[^>]+>/, with: "") }
        }
    }

    /// An added version's row: its version, fingerprint, a time, its origin and devices.
    static func expectRow(_ row: [String], _ version: Int, _ fingerprint: String, from origin: String, devices: Int) {
        #expect(row.count == 5, "\(row)")
        guard row.count == 5 else { return }
        #expect(row[0] == "\(version)" && row[1] == fingerprint && row[3] == origin && row[4] == "\(devices)", "\(row)")
        #expect(row[2].contains(" UTC ("), "the time it was added: \(row)")
    }

    @Test func theContractsPageCountsDevicesByTheVersionTheirAppWasBuiltWith() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let path = "/v1/contracts/\(DeliveryContract.typeName)"
        #expect(try server.admin("PUT", path, json: DeliveryContract.text(DeliveryContract.v1)).status == 201)
        #expect(try server.admin("PUT", path, json: DeliveryContract.text(DeliveryContract.v2)).status == 201)
        let (v1, v2) = (DeliveryContract.v1.fingerprint, DeliveryContract.v2.fingerprint)

        // Versions no device has yet are listed, with none.
        let before = try Self.versionRows(try visitor.get("/dashboard/contracts").text, type: DeliveryContract.typeName)
        #expect(before.count == 3, "\(before)")
        if before.count == 3 {
            Self.expectRow(before[0], 1, v1, from: "the API", devices: 0)
            Self.expectRow(before[1], 2, v2, from: "the API", devices: 0)
            #expect(before[2] == ["version not told", "", "", "", "0"])
        }

        // Two phones of apps built with version 1, one with version 2, one that does not say.
        for (index, fingerprint) in [(1, v1), (2, v1), (3, v2), (4, nil)] {
            let status = try DeliveryContract.registerPhone(index, on: server, bearer: bearer, fingerprint: fingerprint)
            #expect(status == 200 || status == 201, "phone \(index): \(status)")
        }
        let page = try visitor.get("/dashboard/contracts")
        #expect(page.status == 200)
        #expect(page.text.contains(#"<a href="/dashboard/contracts" aria-current="page">Contracts</a>"#))
        #expect(page.text.contains(#"data-events="/dashboard/events?page=contracts""#))
        let rows = try Self.versionRows(page.text, type: DeliveryContract.typeName)
        #expect(rows.count == 3, "\(rows)")
        if rows.count == 3 {
            Self.expectRow(rows[0], 1, v1, from: "the API", devices: 2)
            Self.expectRow(rows[1], 2, v2, from: "the API", devices: 1)
            #expect(rows[2] == ["version not told", "", "", "", "1"])
        }
        #expect(
            page.text.contains(
                "<div><dt>from</dt><dd>the API</dd></div><div><dt>current version</dt><dd>2</dd></div><div><dt>fingerprint</dt><dd><code>\(v2)</code></dd></div>"
            ))

        // Each built-in type with its one version, compiled in, and no device.
        let builtIn: ContractRegistry = .builtIn
        for contract in builtIn.contracts {
            let expected: [[String]] = [
                ["\(contract.version)", contract.fingerprint, "built into this server", "compiled in", "0"], ["version not told", "", "", "", "0"],
            ]
            #expect(try Self.versionRows(page.text, type: contract.typeName) == expected, "\(contract.typeName)")
        }
        // The keys, the added one with its version, the nested object and the enum's cases.
        #expect(page.text.contains("<details><summary>Keys of DeliveryActivityAttributes</summary>"))
        #expect(
            page.text.contains(
                #"<tr><th scope="row"><code>tip</code></th><td><code>Double</code></td><td>optional</td><td>2</td><td>the tip, in euros</td></tr>"#))
        #expect(page.text.contains("<caption>Item (a nested object)</caption>"))
        #expect(page.text.contains("<dt>Status (a string)</dt><dd>preparing, pickedUp, nearby, delivered</dd>"))
    }

    @Test func aFingerprintOfNoVersionIsCountedAsAnUnknownVersion() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let builtIn: ContractRegistry = .builtIn
        let trip = try #require(builtIn.contract(named: "TripLiveActivityAttributes"))
        for index in 1...2 {
            let status = try DeliveryContract.registerPhone(index, on: server, bearer: bearer, type: trip.typeName, fingerprint: trip.fingerprint)
            #expect(status == 200 || status == 201, "phone \(index): \(status)")
        }
        // One of them registered with an older build of this server, whose trip had another shape.
        let older = "0123456789abcdef"
        try server.app.store.database.write { transaction in
            _ = try transaction.execute("UPDATE push_tokens SET contract_fingerprint = $1 WHERE device_id = $2", [.text(older), .text("phone-2")])
        }
        let rows = try Self.versionRows(try visitor.get("/dashboard/contracts").text, type: trip.typeName)
        let expected: [[String]] = [
            ["1", trip.fingerprint, "built into this server", "compiled in", "1"], ["unknown version", older, "", "", "1"],
            ["version not told", "", "", "", "0"],
        ]
        #expect(rows == expected)
    }

    @Test func contractFileNamesAndKeysAreShownAsTextNeverAsMarkup() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-contracts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let parcel = ContractFile(
            typeName: "ParcelActivityAttributes", version: 1,
            schema: ContractSchema(
                attributes: [],
                contentState: [
                    ContractField("state", .enumeration(name: "State", cases: ["<img src=x onerror=alert(1)>", "delivered"])),
                    ContractField("note", .string, optional: true, "<script>alert(2)</script>"),
                ]))
        let name = #"Parcel <b>&'".json"#
        try parcel.json.write(to: folder.appendingPathComponent(name))
        let server = try DashboardServer { $0.contractsDirectory = folder }
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        try visitor.signIn()

        let page = try visitor.get("/dashboard/contracts").text
        for raw in ["<img src=x", "<script>alert", "<b>&"] {
            #expect(!page.contains(raw), "the page has \(raw) as markup")
        }
        let escaped = "Parcel &lt;b&gt;&amp;&#39;&quot;.json"
        #expect(page.contains("<dt>from</dt><dd>contract file <code>\(escaped)</code></dd>"))
        let rows = try Self.versionRows(page, type: "ParcelActivityAttributes")
        #expect(rows.count == 2, "\(rows)")
        if let first = rows.first { Self.expectRow(first, 1, parcel.fingerprint, from: "contract file \(escaped)", devices: 0) }
        #expect(page.contains("<dd>&lt;img src=x onerror=alert(1)&gt;, delivered</dd>"))
        #expect(page.contains("<td>&lt;script&gt;alert(2)&lt;/script&gt;</td>"))
    }
}
