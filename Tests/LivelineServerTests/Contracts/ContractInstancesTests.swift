import Foundation
import LivelineModel
import LivelineServer
import LivelineTestSupport
import LivelineTesting
import Testing

/// Contracts added through the API live in the database: every instance sharing one PostgreSQL
/// serves them, and a newer version put on one is the current one on the other
/// (`docs/contracts.md`, "Bring your own Live Activity"). On PostgreSQL in every run.
@Suite struct ContractInstancesTests {
    @Test func aContractAndItsNewVersionPutOnOneInstanceAreServedByTheOther() async throws {
        let url = try TestPostgres.freshURL().url
        let first = try APISetup { $0.databaseURL = url }
        defer { first.stop() }
        let second = try APISetup { $0.databaseURL = url }
        defer { second.stop() }
        let type = DeliveryContract.typeName
        #expect(try second.admin("GET", "/v1/contracts/\(type)").status == 404)

        #expect(try first.admin("PUT", "/v1/contracts/\(type)", json: DeliveryContract.text(DeliveryContract.file())).status == 201)
        // At once on the other: its catalog reads the database again on a name it does not know.
        let seen = try second.admin("GET", "/v1/contracts/\(type)")
        #expect(seen.status == 200 && seen.json?["origin"] as? String == "api", "\(seen.text)")
        #expect(try second.admin("PUT", "/v1/contexts/delivery:9", json: DeliveryContract.put(DeliveryContract.state())).status == 201)
        let document = try second.server.request("GET", "/openapi.json").text
        #expect(document.contains(type))

        // Version 2 put on the second instance is the first one's current version once the
        // change has been told (PostgreSQL's NOTIFY): a state with its new key is checked by it.
        #expect(try second.admin("PUT", "/v1/contracts/\(type)", json: DeliveryContract.text(DeliveryContract.v2)).status == 201)
        #expect(
            try await eventually(timeout: 10) { try first.admin("GET", "/v1/contracts/\(type)").json?["version"] as? Int == 2 },
            "the first instance serves version 2")
        let wrongTip = try first.admin(
            "PUT", "/v1/contexts/delivery:9", json: DeliveryContract.put(DeliveryContract.state(extra: ["tip": .string("much")])))
        #expect(wrongTip.status == 422 && wrongTip.text.contains("contentState.tip"), "\(wrongTip.text)")
    }
}
