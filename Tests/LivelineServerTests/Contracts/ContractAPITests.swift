import Foundation
import LivelineModel
import LivelineServer
import LivelineTestSupport
import LivelineTesting
import Testing

/// `/v1/contracts`: an app's own Live Activity type, added at run time, is served exactly as a
/// built-in one; a new version never breaks an installed app (`docs/contracts.md`, "Bring your own
/// Live Activity").
@Suite struct ContractAPITests {
    /// A phone of `index` with an update token of `key`, its app built with `fingerprint`.
    static func phone(_ setup: APISetup, _ index: Int, key: String, fingerprint: String?) throws -> (token: String, status: Int, text: String) {
        let token = String(format: "%064x", 0xde11_0000 + index)
        setup.sandbox.registerDevice(token: token)
        var body: [String: JSONValue] = [
            "kind": .string("la-update"), "token": .string(token), "device_id": .string("phone-\(index)"), "context_key": .string(key),
        ]
        if let fingerprint { body["contract_fingerprint"] = .string(fingerprint) }
        let response = try setup.server.request(
            "POST", "/api/apns/register", token: setup.bearer, json: String(decoding: JSONValue.object(body).compactJSON, as: UTF8.self))
        return (token, response.status, response.text)
    }

    @Test func aContractAddedThroughTheAPIIsCheckedPushedAndDocumentedLikeABuiltInOne() async throws {
        let setup = try APISetup()
        defer { setup.stop() }
        let v1 = DeliveryContract.file()
        let put = try setup.admin("PUT", "/v1/contracts/DeliveryActivityAttributes", json: DeliveryContract.text(v1))
        #expect(put.status == 201, "\(put.text)")
        #expect(put.json?["fingerprint"] as? String == v1.fingerprint)
        // The same file again stores nothing new.
        let again = try setup.admin("PUT", "/v1/contracts/DeliveryActivityAttributes", json: DeliveryContract.text(v1))
        #expect(again.status == 200 && again.json?["created"] as? Bool == false)
        let list = try setup.admin("GET", "/v1/contracts")
        let entries = try #require(list.json?["contracts"] as? [[String: Any]])
        #expect(entries.contains { $0["type"] as? String == "DeliveryActivityAttributes" && $0["origin"] as? String == "api" })
        #expect(entries.contains { $0["type"] as? String == "TripLiveActivityAttributes" && $0["origin"] as? String == "builtIn" })

        // The context is created (the app's phone registered first), checked and pushed.
        #expect(try setup.admin("PUT", "/v1/contexts/delivery:1", json: DeliveryContract.put(DeliveryContract.state("preparing"))).status == 201)
        let phone = try Self.phone(setup, 1, key: "delivery:1", fingerprint: v1.fingerprint)
        #expect(phone.status == 200, "\(phone.text)")
        #expect(try setup.admin("PUT", "/v1/contexts/delivery:1", json: DeliveryContract.put(DeliveryContract.state("pickedUp"))).status == 200)
        #expect(await eventually { setup.contentStates(phone.token).contains { $0["status"] as? String == "pickedUp" } })
        // A state the app's type cannot decode is refused, naming the field, and changes nothing.
        let wrong = try setup.admin("PUT", "/v1/contexts/delivery:1", json: DeliveryContract.put(DeliveryContract.state("lost")))
        #expect(wrong.status == 422)
        #expect(wrong.json.flatMap { ($0["error"] as? [String: Any])?["field"] as? String } == "contentState.status", "\(wrong.text)")
        #expect(wrong.text.contains("preparing, pickedUp, nearby, delivered"))
        #expect(try setup.admin("GET", "/v1/contexts/delivery:1").json?["rev"] as? Int == 2)

        // The document names it wherever a contract is named; GET gives it as a contract file.
        let document = try setup.server.request("GET", "/openapi.json").text
        #expect(document.contains("DeliveryActivityAttributes"))
        let one = try setup.admin("GET", "/v1/contracts/DeliveryActivityAttributes")
        #expect(one.status == 200)
        let contract = try #require(one.json?["contract"])
        let reread = try ContractFile.parse(JSONSerialization.data(withJSONObject: contract))
        #expect(reread == v1)
        let installed = try #require(one.json?["installed"] as? [[String: Any]])
        #expect(installed.count == 1 && installed.first?["version"] as? Int == 1 && installed.first?["devices"] as? Int == 1)
        // A built-in one is shown the same way.
        let trip = try setup.admin("GET", "/v1/contracts/TripLiveActivityAttributes")
        #expect(trip.status == 200 && trip.json?["origin"] as? String == "builtIn")
        #expect(try setup.admin("GET", "/v1/contracts/NoSuchAttributes").status == 404)
    }

    @Test func aVersionThatWouldBreakAnInstalledAppIsRefusedAndAnAdditiveOneReachesEveryPhone() async throws {
        let setup = try APISetup()
        defer { setup.stop() }
        let v1 = DeliveryContract.file()
        #expect(try setup.admin("PUT", "/v1/contracts/DeliveryActivityAttributes", json: DeliveryContract.text(v1)).status == 201)
        #expect(try setup.admin("PUT", "/v1/contexts/delivery:7", json: DeliveryContract.put(DeliveryContract.state("preparing"))).status == 201)
        let old = try Self.phone(setup, 1, key: "delivery:7", fingerprint: v1.fingerprint)
        #expect(old.status == 200, "\(old.text)")

        // v2 without `items` (required in v1): refused, naming the key, the version and its devices.
        let removing = DeliveryContract.file(version: 2, contentState: Array(DeliveryContract.contentState().dropLast()))
        let refused = try setup.admin("PUT", "/v1/contracts/DeliveryActivityAttributes", json: DeliveryContract.text(removing))
        #expect(refused.status == 409, "\(refused.text)")
        #expect(refused.text.contains("contentState.items") && refused.text.contains("version 1 (1 device)"), "\(refused.text)")
        #expect(try setup.admin("GET", "/v1/contracts/DeliveryActivityAttributes").json?["version"] as? Int == 1)

        // An additive v2 is taken; a phone of the new build and the old one both get the push.
        let added = try setup.admin("PUT", "/v1/contracts/DeliveryActivityAttributes", json: DeliveryContract.text(DeliveryContract.v2))
        #expect(added.status == 201, "\(added.text)")
        let new = try Self.phone(setup, 2, key: "delivery:7", fingerprint: DeliveryContract.v2.fingerprint)
        #expect(new.status == 200, "\(new.text)")
        let tipped = DeliveryContract.state("nearby", extra: ["tip": .double(2.5)])
        #expect(try setup.admin("PUT", "/v1/contexts/delivery:7", json: DeliveryContract.put(tipped)).status == 200)
        for token in [old.token, new.token] {
            #expect(await eventually { setup.contentStates(token).contains { $0["tip"] as? Double == 2.5 } }, "\(token)")
        }

        // v3, forced, makes the courier required and adds a case: a state v1 cannot decode is
        // refused at the PUT, naming the version and the key, and never reaches a phone.
        var cases = DeliveryContract.contentState(cases: DeliveryContract.cases + ["cancelled"])
        cases.append(ContractField("tip", .double, optional: true, since: 2))
        let v3 = DeliveryContract.file(version: 3, contentState: cases)
        #expect(try setup.admin("PUT", "/v1/contracts/DeliveryActivityAttributes", json: DeliveryContract.text(v3)).status == 409)
        #expect(try setup.admin("PUT", "/v1/contracts/DeliveryActivityAttributes?force=true", json: DeliveryContract.text(v3)).status == 201)
        #expect(try await eventually { try setup.outboxIsEmpty() })
        let before = setup.sandbox.accepted(token: old.token).count + setup.sandbox.accepted(token: new.token).count
        let cancelled = try setup.admin("PUT", "/v1/contexts/delivery:7", json: DeliveryContract.put(DeliveryContract.state("cancelled")))
        #expect(cancelled.status == 422)
        #expect(cancelled.text.contains("version 1") && cancelled.text.contains("contentState.status"), "\(cancelled.text)")
        #expect(try setup.admin("PUT", "/v1/contexts/delivery:7", json: DeliveryContract.put(DeliveryContract.state("delivered"))).status == 200)
        #expect(await eventually { setup.contentStates(old.token).last?["status"] as? String == "delivered" })
        #expect(try await eventually { try setup.outboxIsEmpty() })
        let after = setup.sandbox.accepted(token: old.token).count + setup.sandbox.accepted(token: new.token).count
        #expect(after == before + 2, "only the delivered state was pushed, once to each phone")
        #expect(!setup.contentStates(old.token).contains { $0["status"] as? String == "cancelled" })
    }

    @Test func badContractsAreRefusedNamingTheFieldAndStoreNothing() throws {
        let setup = try APISetup()
        defer { setup.stop() }
        let path = "/v1/contracts/DeliveryActivityAttributes"
        func refusal(_ body: String, path: String = path) throws -> (status: Int, field: String?, message: String) {
            let response = try setup.admin("PUT", path, json: body)
            let error = response.json?["error"] as? [String: Any]
            return (response.status, error?["field"] as? String, error?["message"] as? String ?? response.text)
        }
        let good = DeliveryContract.text(DeliveryContract.file())
        let malformed = try refusal(String(good.dropLast(3)))
        #expect(malformed.status == 400 && malformed.message.contains("not valid JSON"), "\(malformed)")
        let unknownType = try refusal(good.replacingOccurrences(of: #""type": "String""#, with: #""type": "Strin""#))
        #expect(unknownType.status == 400 && unknownType.field?.hasSuffix(".type") == true, "\(unknownType)")
        #expect(unknownType.message.contains("Did you mean 'String'?"), "\(unknownType)")
        let recursive = """
            {"format":"liveline-contract/1","type":"DeliveryActivityAttributes","version":1,"attributes":[],
             "contentState":[{"key":"root","type":"Node"}],
             "types":{"Node":{"fields":[{"key":"children","type":"[Node]"}]}}}
            """
        let cycle = try refusal(recursive)
        #expect(cycle.status == 400 && cycle.message.contains("Node"), "\(cycle)")
        let huge =
            #"{"format":"liveline-contract/1","type":"DeliveryActivityAttributes","version":1,"attributes":[],"contentState":[],"padding":""#
            + String(repeating: "x", count: 1_000_000) + #""}"#
        let large = try refusal(huge)
        #expect(large.status == 413 && large.message.contains("262144"), "\(large)")
        let clash = try refusal(
            DeliveryContract.text(DeliveryContract.file(typeName: "TripLiveActivityAttributes")), path: "/v1/contracts/TripLiveActivityAttributes")
        #expect(clash.status == 409 && clash.field == "type" && clash.message.contains("compiled into this server"), "\(clash)")
        let otherPath = try refusal(good, path: "/v1/contracts/ParcelActivityAttributes")
        #expect(otherPath.status == 400 && otherPath.field == "type", "\(otherPath)")
        let badName = try refusal(good, path: "/v1/contracts/not-a-type")
        #expect(badName.status == 400 && badName.field == "type", "\(badName)")
        // None of it was stored.
        let list = try setup.admin("GET", "/v1/contracts").json?["contracts"] as? [[String: Any]] ?? []
        #expect(!list.contains { $0["origin"] as? String != "builtIn" }, "\(list)")

        // A token whose fingerprint matches no version of its type is refused and not stored.
        #expect(try setup.admin("PUT", path, json: good).status == 201)
        #expect(try setup.admin("PUT", "/v1/contexts/delivery:2", json: DeliveryContract.put(DeliveryContract.state())).status == 201)
        let stray = try Self.phone(setup, 3, key: "delivery:2", fingerprint: "0123456789abcdef")
        #expect(stray.status == 422 && stray.text.contains("contract_fingerprint") && stray.text.contains("matches no version"), "\(stray.text)")
        let shape = try Self.phone(setup, 4, key: "delivery:2", fingerprint: "not-hex")
        #expect(shape.status == 400 && shape.text.contains("contract_fingerprint"), "\(shape.text)")
        #expect(try setup.server.app.store.contracts.installed(DeliveryContract.typeName).isEmpty)
    }
}

extension ContractAPITests {
    /// A contract file's lifecycle is the type's: its stale time, dismissal time, priority-10
    /// budget and which keys are material, as a feature's lifecycle is.
    @Test func aContractFilesLifecycleSetsStaleAndDismissalDatesTheBudgetAndMateriality() async throws {
        // A quiet change waits 2 s after the last push (30 by default): long enough to tell.
        let setup = try APISetup {
            $0.minimumPushInterval = 0
            $0.quietChangeDebounce = 2
        }
        defer { setup.stop() }
        var file = DeliveryContract.file()
        file.lifecycle = ContractLifecycle(staleAfter: 120, dismissAfter: 60, priorityBudget: 2, materialKeys: ["status"])
        #expect(try setup.admin("PUT", "/v1/contracts/DeliveryActivityAttributes", json: DeliveryContract.text(file)).status == 201)
        // The phone follows the key before the context exists: the first push is the creation's.
        let phone = try Self.phone(setup, 5, key: "delivery:3", fingerprint: file.fingerprint)
        #expect(phone.status == 200, "\(phone.text)")
        #expect(try setup.admin("PUT", "/v1/contexts/delivery:3", json: DeliveryContract.put(DeliveryContract.state("preparing"))).status == 201)
        #expect(await eventually { setup.contentStates(phone.token).last?["status"] as? String == "preparing" })
        // Three material changes (the status), then one of a key that is not material.
        for status in ["pickedUp", "nearby", "delivered"] {
            #expect(try setup.admin("PUT", "/v1/contexts/delivery:3", json: DeliveryContract.put(DeliveryContract.state(status))).status == 200)
            #expect(await eventually { setup.contentStates(phone.token).last?["status"] as? String == status })
        }
        #expect(
            try setup.admin("PUT", "/v1/contexts/delivery:3", json: DeliveryContract.put(DeliveryContract.state("delivered", courier: "Kim")))
                .status == 200)
        #expect(await eventually(timeout: 40) { setup.contentStates(phone.token).last?["courierName"] as? String == "Kim" })
        let priorities = setup.sandbox.accepted(token: phone.token).map(\.priority)
        // The creation and `pickedUp` spend the budget of 2; the rest go at 5.
        #expect(priorities == [10, 10, 5, 5, 5], "\(priorities)")
        // The delivery is recorded once APNs' answer is back, a moment after the sandbox has the push.
        let quiet = await eventually { (try? setup.admin("GET", "/v1/contexts/delivery:3/timeline?limit=100").text.contains("quiet")) == true }
        #expect(quiet, "the courier alone is a quiet change")
        let update = try #require(setup.aps(phone.token).last)
        // Stale 120 s after it was sent (just now).
        let stale = try #require(update["stale-date"] as? Int)
        #expect(abs(stale - Int(Date().timeIntervalSince1970) - 120) <= 5, "\(stale)")
        // Dismissed 60 s after the end: between the request's start and the push's arrival (a
        // loaded machine may take seconds to send it), give or take the second dates are cut to.
        let ending = Int(Date().timeIntervalSince1970)
        #expect(try setup.admin("POST", "/v1/contexts/delivery:3/end").status == 200)
        #expect(await eventually { setup.aps(phone.token).last?["event"] as? String == "end" })
        let ended = Int(Date().timeIntervalSince1970)
        let end = try #require(setup.aps(phone.token).last)
        let dismissal = try #require(end["dismissal-date"] as? Int)
        #expect((ending + 60 - 1)...(ended + 60 + 1) ~= dismissal, "dismissed 60 s after the end (\(ending)–\(ended)): \(dismissal)")
    }
}
