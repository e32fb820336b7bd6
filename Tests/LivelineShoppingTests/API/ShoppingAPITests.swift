import Foundation
import LivelineModel
import LivelineSandbox
import LivelineServer
import LivelineShoppingModel
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import Synchronization
import Testing

/// The shopping list's API (`docs/features/shopping.md`) through the server's router and handlers (in-process), a SQLite file, the engine and
/// the in-process APNs sandbox over HTTP/2 + TLS.
@Suite struct ShoppingAPITests {
    static let week = "2026-01-05"

    /// A server, the user of `APISetup` ("Dennis …") and a second member, Jaqueline.
    final class Household {
        let setup: APISetup
        let clock: ManualClock?
        let partner: (id: UserID, token: String)

        init(
            _ mode: TestServer.Mode = .inProcess, folder: URL? = nil, external: APNSSandbox? = nil, clock: ManualClock? = nil,
            configure: (inout ServerConfiguration) -> Void = { _ in }
        ) throws {
            self.clock = clock
            setup = try APISetup(mode, folder: folder, external: external, clock: clock, configure: configure)
            let (user, token) = try setup.server.addUser(household: "Fisch", name: "Jaqueline")
            partner = (user.id, token)
        }

        var server: TestServer { setup.server }

        func call(_ method: String, _ path: String, token: String? = nil, json: String? = nil) throws -> TestHTTPConnection.Response {
            try server.request(method, path, token: token ?? setup.bearer, json: json)
        }

        @discardableResult
        func add(_ label: String, price: Double? = nil, by: UserID? = nil, token: String? = nil) throws -> [String: Any] {
            var body: [String: Any] = ["label": label]
            if let price { body["price"] = price }
            if let by { body["by"] = by.rawValue }
            let response = try call("POST", "/api/shopping/\(ShoppingAPITests.week)/items", token: token, json: Self.json(body))
            #expect(response.status == 201, "\(response.text)")
            return response.json ?? [:]
        }

        @discardableResult
        func patch(_ id: Int, _ body: [String: Any], token: String? = nil, status: Int = 200) throws -> [String: Any] {
            let response = try call("PATCH", "/api/shopping/items/\(id)", token: token, json: Self.json(body))
            #expect(response.status == status, "\(response.text)")
            return response.json ?? [:]
        }

        func pull(sinceRev: Int? = nil, token: String? = nil) throws -> [String: Any] {
            let response = try call("GET", "/api/shopping/\(ShoppingAPITests.week)" + (sinceRev.map { "?since_rev=\($0)" } ?? ""), token: token)
            #expect(response.status == 200, "\(response.text)")
            return response.json ?? [:]
        }

        func state() throws -> [String: Any] { try pull()["state"] as? [String: Any] ?? [:] }

        static func json(_ object: [String: Any]) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }

        func stop() { setup.stop() }
    }

    @Test func thePullAnswersUnchangedWithNothingElseAndTheWholeTruthOtherwise() throws {
        let home = try Household()
        defer { home.stop() }
        let empty = try home.pull()
        #expect(empty["rev"] as? Int == 0 && empty["unchanged"] as? Bool == false)
        #expect((empty["items"] as? [Any])?.isEmpty == true)
        #expect((empty["state"] as? [String: Any])?["open"] as? Int == 0)
        #expect(try home.pull(sinceRev: 0).keys.sorted() == ["rev", "unchanged", "week"], "a week nobody touched is rev 0")

        let milk = try home.add("Milch", price: 1.29)
        #expect(milk["label"] as? String == "Milch" && milk["price"] as? Double == 1.29 && milk["done"] as? Bool == false)
        #expect(milk["rev"] as? Int == 1 && milk["id"] is Int && milk["addedBy"] as? Int == home.setup.userID.rawValue)
        let unchanged = try home.pull(sinceRev: 1)
        let raw = try home.call("GET", "/api/shopping/\(Self.week)?since_rev=1").text
        let encoded = try APICoding.makeEncoder().encode(ShoppingWeekResponse(week: Self.week, rev: 1, unchanged: true))
        #expect(raw == String(decoding: encoded, as: UTF8.self), "the hand-written answer is what the encoder writes")
        #expect(unchanged.keys.sorted() == ["rev", "unchanged", "week"], "\(unchanged)")
        #expect(unchanged["unchanged"] as? Bool == true && unchanged["rev"] as? Int == 1 && unchanged["week"] as? String == Self.week)

        let full = try home.pull(sinceRev: 0)
        #expect(full["unchanged"] as? Bool == false && full["rev"] as? Int == 1)
        let items = try #require(full["items"] as? [[String: Any]])
        #expect(items.count == 1 && items[0]["label"] as? String == "Milch")
        let state = try #require(full["state"] as? [String: Any])
        #expect(state["rev"] as? Int == 1 && state["open"] as? Int == 1 && state["estEur"] as? Double == 1.29)
        // The card's state decodes into the shared contract.
        let data = try JSONSerialization.data(withJSONObject: state)
        #expect(try JSONDecoder().decode(ShoppingActivityAttributes.ContentState.self, from: data).nextOpen.map(\.label) == ["Milch"])
    }

    @Test func countsPricesStoryAndNextOpenFollowTheChronology() throws {
        let home = try Household()
        defer { home.stop() }
        let partner = home.partner.id
        let milk = try #require(try home.add("Milch", price: 1.29)["id"] as? Int)
        try home.add("Brot", price: 2.5, by: partner)
        try home.add("Käse")
        try home.add("Äpfel", price: 3.333)
        var state = try home.state()
        #expect(state["lastEventText"] as? String == "Dennis 1 hat Äpfel hinzugefügt")
        #expect(state["estEur"] as? Double == 7.12 && state["estPriced"] as? Int == 3, "1.29 + 2.50 + 3.33")

        try home.patch(milk, ["done": true, "by": partner.rawValue])
        state = try home.state()
        #expect(state["open"] as? Int == 3 && state["done"] as? Int == 1 && state["total"] as? Int == 4)
        #expect(state["estEur"] as? Double == 5.83 && state["estPriced"] as? Int == 2, "the checked-off milk no longer counts")
        #expect(state["lastEventText"] as? String == "Jaqueline hat Milch eingepackt")
        #expect(state["lastActorUserId"] as? Int == partner.rawValue && state["lastActorName"] as? String == "Jaqueline")
        #expect(state["lastItem"] as? String == "Milch" && (state["updatedAt"] as? String)?.count == 19)
        #expect((state["nextOpen"] as? [[String: Any]])?.compactMap { $0["label"] as? String } == ["Brot", "Käse", "Äpfel"])

        try home.patch(milk, ["done": false])
        #expect(try home.state()["lastEventText"] as? String == "Dennis 1 hat Milch zurückgelegt")
        let removed = try home.call("DELETE", "/api/shopping/items/\(milk)?by=\(partner)")
        #expect(removed.status == 200 && removed.json?["removed"] as? Bool == true, "\(removed.text)")
        state = try home.state()
        #expect(state["lastEventText"] as? String == "Jaqueline hat Milch entfernt" && state["total"] as? Int == 3)

        // Checking off a checked item again (a retry) changes nothing: same revision, no new story.
        let bread = try #require(((try home.pull()["items"] as? [[String: Any]])?.first { $0["label"] as? String == "Brot" })?["id"] as? Int)
        let first = try home.patch(bread, ["done": true])
        let again = try home.patch(bread, ["done": true])
        #expect(first["rev"] as? Int == again["rev"] as? Int, "a repeated check-off is no new revision")
        // Position, label and price edits; price null removes the price.
        try home.patch(bread, ["label": "Vollkornbrot", "price": NSNull(), "position": 0])
        let items = try #require(try home.pull()["items"] as? [[String: Any]])
        #expect(items.first?["label"] as? String == "Vollkornbrot" && items.first?["price"] is NSNull)
    }

    @Test func anEnglishHouseholdReadsItsStoryInEnglish() throws {
        let home = try Household()
        defer { home.stop() }
        let (_, token) = try home.server.addUser(household: "Smiths", name: "Ann")
        try home.server.app.store.database.write { transaction in
            try transaction.execute("UPDATE households SET locale = 'en' WHERE name = 'Smiths'", [])
        }
        let eggs = try #require(try home.add("Eggs", token: token)["id"] as? Int)
        try home.patch(eggs, ["done": true], token: token)
        #expect(try home.pull(token: token)["state"].flatMap { ($0 as? [String: Any])?["lastEventText"] as? String } == "Ann packed Eggs")
        // And the Fisch household's week is untouched by the Smiths'.
        #expect(try home.pull()["rev"] as? Int == 0)
    }

    @Test func badInputIsRefusedNamingTheFieldAndChangesNothing() throws {
        let home = try Household()
        defer { home.stop() }
        let milk = try #require(try home.add("Milch", price: 1)["id"] as? Int)
        let (stranger, strangerToken) = try home.server.addUser(household: "Other", name: "Eve")
        let cases: [(String, String, String?, Int, String)] = [
            ("GET", "/api/shopping/2026-01-06", nil, 400, "week"),  // a Tuesday
            ("GET", "/api/shopping/2026-13-05", nil, 400, "week"),
            ("GET", "/api/shopping/05.01.2026", nil, 400, "week"),
            ("GET", "/api/shopping/\(Self.week)?since_rev=x", nil, 400, "since_rev"),
            ("POST", "/api/shopping/2026-01-07/items", #"{"label":"Milch"}"#, 400, "week"),
            ("POST", "/api/shopping/\(Self.week)/items", #"{"label":"   "}"#, 400, "label"),
            ("POST", "/api/shopping/\(Self.week)/items", #"{"label":"\#(String(repeating: "x", count: 201))"}"#, 400, "label"),
            ("POST", "/api/shopping/\(Self.week)/items", #"{"label":"Milch","price":-1}"#, 400, "price"),
            ("POST", "/api/shopping/\(Self.week)/items", #"{"label":"Milch","price":"2,50"}"#, 400, "price"),
            ("POST", "/api/shopping/\(Self.week)/items", #"{"price":2}"#, 400, "label"),
            ("POST", "/api/shopping/\(Self.week)/items", #"{"label":"Milch","by":\#(stranger.id)}"#, 403, "by"),
            ("POST", "/api/shopping/\(Self.week)/items", #"{"label":"Milch","by":999999}"#, 403, "by"),
            ("PATCH", "/api/shopping/items/\(milk)", "{}", 400, "body"),
            ("PATCH", "/api/shopping/items/\(milk)", #"{"done":"yes"}"#, 400, "done"),
            ("PATCH", "/api/shopping/items/\(milk)", #"{"position":-1}"#, 400, "position"),
            ("PATCH", "/api/shopping/items/\(milk)", #"{"label":""}"#, 400, "label"),
            ("PATCH", "/api/shopping/items/abc", #"{"done":true}"#, 400, "id"),
            ("PATCH", "/api/shopping/items/\(milk)", #"{"done":true,"by":\#(stranger.id)}"#, 403, "by"),
            ("PATCH", "/api/shopping/items/999999", #"{"done":true}"#, 404, ""),
            ("DELETE", "/api/shopping/items/\(milk)?by=abc", nil, 400, "by"),
            ("DELETE", "/api/shopping/items/\(milk)?by=\(stranger.id)", nil, 403, "by"),
            ("POST", "/api/shopping/\(Self.week)/session", #"{"by":"me"}"#, 400, "by"),
            ("POST", "/api/shopping/\(Self.week)/session", #"{"by":\#(stranger.id)}"#, 403, "by"),
        ]
        for (method, path, body, status, field) in cases {
            let response = try home.call(method, path, json: body)
            #expect(response.status == status, "\(method) \(path) \(body ?? ""): \(response.text)")
            let error = response.json?["error"] as? [String: Any]
            #expect(error?["message"] is String, "\(method) \(path): \(response.text)")
            if status == 400 { #expect(error?["field"] as? String == field, "\(method) \(path) \(body ?? ""): \(response.text)") }
        }
        // Another household's item is not found, whatever it tries.
        #expect(try home.call("PATCH", "/api/shopping/items/\(milk)", token: strangerToken, json: #"{"done":true}"#).status == 404)
        #expect(try home.call("DELETE", "/api/shopping/items/\(milk)", token: strangerToken).status == 404)
        // No bearer, no list.
        for (method, path) in [
            ("GET", "/api/shopping/\(Self.week)"), ("POST", "/api/shopping/\(Self.week)/items"), ("PATCH", "/api/shopping/items/\(milk)"),
            ("DELETE", "/api/shopping/items/\(milk)"), ("POST", "/api/shopping/\(Self.week)/session"),
        ] {
            #expect(try home.server.request(method, path, json: #"{"label":"x"}"#).status == 401, "\(method) \(path)")
        }
        // Nothing changed: one item, unchecked, revision 1; no session.
        let truth = try home.pull()
        #expect(truth["rev"] as? Int == 1)
        let items = try #require(truth["items"] as? [[String: Any]])
        #expect(items.count == 1 && items[0]["done"] as? Bool == false && items[0]["label"] as? String == "Milch")
        #expect(((truth["state"] as? [String: Any])?["activeShoppers"] as? [Any])?.isEmpty == true)
    }

    @Test func aMutationRefreshesOnlyAnActiveSessionAndALapsedShopperIsAChange() async throws {
        let clock = ManualClock()
        let home = try Household(clock: clock)
        defer { home.stop() }
        let partner = home.partner
        // Adding from home does not make Jaqueline a shopper.
        let milk = try #require(try home.add("Milch", token: partner.token)["id"] as? Int)
        let heartbeat = try home.call("POST", "/api/shopping/\(Self.week)/session/heartbeat", token: partner.token)
        #expect(heartbeat.json?["active"] as? Bool == false, "no session was created: \(heartbeat.text)")
        #expect(((try home.state()["activeShoppers"]) as? [Any])?.isEmpty == true)

        // Dennis starts shopping (an empty body: the caller is the actor).
        let started = try home.call("POST", "/api/shopping/\(Self.week)/session")
        #expect(started.status == 200, "\(started.text)")
        #expect((started.json?["activeShoppers"] as? [[String: Any]])?.compactMap { $0["userId"] as? Int } == [home.setup.userID.rawValue])
        #expect(
            started.json?["contextKey"] as? String == "shopping:\(try home.server.app.store.accounts.user(id: partner.id)!.householdID):\(Self.week)")
        let revAfterStart = try #require(started.json?["rev"] as? Int)
        #expect(try home.call("POST", "/api/shopping/\(Self.week)/session").json?["rev"] as? Int == revAfterStart, "already shopping: no change")

        // Ten minutes later he checks milk off: that refreshes his session, so ten more minutes later he is still in.
        clock.advance(by: 600)
        try home.patch(milk, ["done": true])
        clock.advance(by: 600)
        home.server.app.engine.sweepLifecycle()
        #expect((try home.state()["activeShoppers"] as? [[String: Any]])?.count == 1, "20 minutes after the start, 10 after the check-off")
        #expect(try home.call("POST", "/api/shopping/\(Self.week)/session/heartbeat").json?["active"] as? Bool == true)

        // Then 16 quiet minutes: the session lapses, and the expiry is itself a change.
        clock.advance(by: 16 * 60)
        // (The dispatcher's own sweep may get there first; either way the expiry is one revision.)
        home.server.app.engine.sweepLifecycle()
        let after = try home.pull()
        #expect(after["rev"] as? Int == revAfterStart + 2, "the check-off and the expiry are one revision each")
        #expect(((after["state"] as? [String: Any])?["activeShoppers"] as? [Any])?.isEmpty == true)
        #expect((after["state"] as? [String: Any])?["ended"] as? Bool == true, "the last shopper lapsed: the trip is finished")
        #expect(try home.call("POST", "/api/shopping/\(Self.week)/session/heartbeat").json?["active"] as? Bool == false)
        // A mutation after the lapse does not bring the session back.
        try home.patch(milk, ["done": false])
        #expect(((try home.state()["activeShoppers"]) as? [Any])?.isEmpty == true)
        let left = try home.call("POST", "/api/shopping/\(Self.week)/session/end")
        #expect(left.json?["left"] as? Bool == false && left.json?["finished"] as? Bool == false, "\(left.text)")
    }

    @Test func startingToShopStartsTheOtherMembersCardsAndTheLastShopperLeavingEndsIt() async throws {
        let home = try Household()
        defer { home.stop() }
        let type = ShoppingActivityAttributes.typeName
        let mine = try home.setup.startDevice(0, type: type)
        let hers = try home.setup.startDevice(1, type: type, bearer: home.partner.token)
        try home.add("Milch", price: 1.29)

        let started = try home.call("POST", "/api/shopping/\(Self.week)/session")
        #expect(started.status == 200, "\(started.text)")
        let starts = try #require(started.json?["starts"] as? [[String: Any]])
        #expect(
            starts.count == 1 && starts[0]["outcome"] as? String == "queued" && starts[0]["userId"] as? Int == home.partner.id.rawValue, "\(starts)")
        let channel = try #require(started.json?["channelId"] as? String, "the week's channel: \(started.text)")
        #expect(home.setup.sandbox.channels().contains(channel))
        #expect(await eventually { home.setup.aps(hers).contains { $0["event"] as? String == "start" } })
        let start = try #require(home.setup.aps(hers).first)
        #expect(start["attributes-type"] as? String == type && (start["attributes"] as? [String: Any])?["week"] as? String == Self.week)
        #expect(start["input-push-token"] as? Int == 1, "push-started cards get update tokens")
        #expect(((start["content-state"] as? [String: Any])?["activeShoppers"] as? [[String: Any]])?.first?["name"] as? String == "Dennis 1")
        #expect(((start["alert"] as? [String: Any])?["title"] as? String)?.contains("kauft ein") == true)
        #expect(home.setup.aps(mine).isEmpty, "the starter's app starts its own card")

        // Her phone registers its update token; updates now go to it and to the channel.
        let key = try #require(started.json?["contextKey"] as? String)
        let update = String(format: "%064x", 0xabc001)
        home.setup.sandbox.registerDevice(token: update)
        let registered = try home.call(
            "POST", "/api/apns/register", token: home.partner.token,
            json: """
                {"kind":"la-update","token":"\(update)","device_id":"phone-1","context_key":"\(key)","attributes_type":"\(type)"}
                """)
        #expect(registered.status == 200, "\(registered.text)")
        // His app started his card itself and reported rendering it: when she joins the shop, his
        // device is not started again.
        let rendered = try home.call("POST", "/api/la/receipts", json: #"{"context_key":"\#(key)","rev":2,"device_id":"phone-0"}"#)
        #expect(rendered.status == 200, "\(rendered.text)")
        let joined = try home.call("POST", "/api/shopping/\(Self.week)/session", token: home.partner.token)
        let his = try #require((joined.json?["starts"] as? [[String: Any]])?.first { $0["deviceId"] as? String == "phone-0" }, "\(joined.text)")
        #expect(his["outcome"] as? String == "alreadyStarted" && (his["reason"] as? String)?.contains("shows it") == true, "\(his)")
        #expect(home.setup.aps(mine).isEmpty)
        try home.add("Brot", by: home.partner.id)
        #expect(await eventually { home.setup.contentStates(update).contains { $0["total"] as? Int == 2 } })
        #expect(
            await eventually {
                home.setup.sandbox.accepted(channel: channel).contains { push in
                    let aps = (try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])?["aps"] as? [String: Any]
                    return (aps?["content-state"] as? [String: Any])?["total"] as? Int == 2
                }
            })

        // Both leave; the second one to leave finishes the trip: `end` with ended true and a dismissal date.
        let first = try home.call("POST", "/api/shopping/\(Self.week)/session/end")
        #expect(first.json?["left"] as? Bool == true && first.json?["finished"] as? Bool == false, "\(first.text)")
        let last = try home.call("POST", "/api/shopping/\(Self.week)/session/end", token: home.partner.token)
        #expect(last.json?["finished"] as? Bool == true, "\(last.text)")
        #expect(await eventually { home.setup.aps(update).contains { $0["event"] as? String == "end" } })
        let end = try #require(home.setup.aps(update).last { $0["event"] as? String == "end" })
        #expect((end["content-state"] as? [String: Any])?["ended"] as? Bool == true && end["dismissal-date"] is Int)
        // The channel goes once the end reached it.
        #expect(await eventually { !home.setup.sandbox.channels().contains(channel) })

        // A later session starts a new card: her phone is started again (the old update token ended with the old card).
        let next = try home.call("POST", "/api/shopping/\(Self.week)/session")
        #expect((next.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "queued", "\(next.text)")
        #expect(await eventually { home.setup.aps(hers).filter { $0["event"] as? String == "start" }.count == 2 })
        #expect(next.json?["channelId"] as? String != channel)
    }

    @Test func theCardLivesEightHoursFromTheTripNotFromTheFirstItem() async throws {
        let clock = ManualClock()
        let home = try Household(clock: clock)
        defer { home.stop() }
        try home.add("Milch")  // at 08:00, from home: the week's context begins, no card anywhere
        let key = "shopping:\(try home.server.app.store.accounts.user(id: home.partner.id)!.householdID):\(Self.week)"
        clock.advance(by: 7 * 3600 + 40 * 60)  // 15:40
        let tripStart = clock.now
        #expect(try home.call("POST", "/api/shopping/\(Self.week)/session").status == 200)
        let context = try #require(try home.server.app.store.contexts.context(key: key))
        #expect(context.state == .active && abs(context.deadlineAt.timeIntervalSince(tripStart) - 8 * 3600) < 1, "\(context.deadlineAt)")
        // Past 08:00 + 7 h 50 min (when the engine ends a card before its deadline), still shopping with heartbeats.
        for _ in 0..<3 {
            clock.advance(by: 10 * 60)
            #expect(try home.call("POST", "/api/shopping/\(Self.week)/session/heartbeat").json?["active"] as? Bool == true)
            home.server.app.engine.sweepLifecycle()
        }
        let state = try home.state()
        #expect(state["ended"] is NSNull && (state["activeShoppers"] as? [Any])?.count == 1, "\(state)")
    }

    @Test func aChangeAfterTheTripIsCountedButStartsNoCardAndPushesNothing() async throws {
        let home = try Household()
        defer { home.stop() }
        let type = ShoppingActivityAttributes.typeName
        _ = try home.setup.startDevice(1, type: type, bearer: home.partner.token)
        try home.add("Milch")
        let started = try home.call("POST", "/api/shopping/\(Self.week)/session")
        let key = try #require(started.json?["contextKey"] as? String)
        let update = String(format: "%064x", 0xabc002)
        home.setup.sandbox.registerDevice(token: update)
        #expect(
            try home.call(
                "POST", "/api/apns/register", token: home.partner.token,
                json: """
                    {"kind":"la-update","token":"\(update)","device_id":"phone-1","context_key":"\(key)","attributes_type":"\(type)"}
                    """
            ).status == 200)
        let left = try home.call("POST", "/api/shopping/\(Self.week)/session/end")
        #expect(left.json?["finished"] as? Bool == true, "\(left.text)")
        #expect(await eventually { home.setup.aps(update).contains { $0["event"] as? String == "end" } })

        // She adds butter from home after the trip: the list has it (a new revision), the card stays finished.
        let butter = try home.add("Butter", token: home.partner.token)
        let truth = try home.pull()
        #expect(truth["rev"] as? Int == butter["rev"] as? Int && (truth["items"] as? [Any])?.count == 2)
        #expect((truth["state"] as? [String: Any])?["ended"] as? Bool == true)
        // Drained: nothing is left to send, so a push after the end would be here now.
        #expect(try await eventually { try home.setup.outboxIsEmpty() }, "the end and the channel's deletion went out")
        #expect(home.setup.aps(update).last?["event"] as? String == "end", "nothing is pushed after the end")
        let tokens = try home.server.app.store.tokens.activeTokens(
            householdID: try home.server.app.store.accounts.user(id: home.partner.id)!.householdID)
        #expect(tokens.contains { $0.contextKey == key }, "her card's token stays until a new trip starts a new card")
    }

    @Test func startingForAnotherMemberOnASharedDeviceDoesNotStartTheCallersOwnDevice() async throws {
        let home = try Household()
        defer { home.stop() }
        let type = ShoppingActivityAttributes.typeName
        let shared = try home.setup.startDevice(0, type: type)  // Dennis's phone, used by both
        let (kim, kimToken) = try home.server.addUser(household: "Fisch", name: "Kim")
        let kims = try home.setup.startDevice(2, type: type, bearer: kimToken)
        let started = try home.call("POST", "/api/shopping/\(Self.week)/session", json: #"{"by":\#(home.partner.id)}"#)
        #expect(started.status == 200, "\(started.text)")
        #expect((started.json?["activeShoppers"] as? [[String: Any]])?.compactMap { $0["userId"] as? Int } == [home.partner.id.rawValue])
        let starts = try #require(started.json?["starts"] as? [[String: Any]])
        #expect(starts.compactMap { $0["userId"] as? Int } == [kim.id.rawValue], "only Kim's devices: \(starts)")
        #expect(await eventually { home.setup.aps(kims).count == 1 })
        #expect(home.setup.aps(shared).isEmpty)
    }

    @Test func anOptedOutMemberIsNotStartedAndWithoutAChannelTheCardsGoByTokens() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-shopping-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APISetup.externalSandbox(folder, quota: 0)
        defer { sandbox.stop() }
        let home = try Household(folder: folder.appendingPathComponent("data"), external: sandbox)
        defer { home.stop() }
        let type = ShoppingActivityAttributes.typeName
        let (kim, kimToken) = try home.server.addUser(household: "Fisch", name: "Kim")
        let hers = try home.setup.startDevice(1, type: type, bearer: home.partner.token)
        let kims = try home.setup.startDevice(2, type: type, bearer: kimToken)
        let optOut = try home.call("POST", "/api/la/preferences", token: home.partner.token, json: #"{"attributes_type":"\#(type)","enabled":false}"#)
        #expect(optOut.status == 200, "\(optOut.text)")

        let started = try home.call("POST", "/api/shopping/\(Self.week)/session")
        #expect(started.status == 200, "\(started.text)")
        let outcomes = Dictionary(
            uniqueKeysWithValues: (started.json?["starts"] as? [[String: Any]] ?? []).compactMap { start in
                (start["userId"] as? Int).map { ($0, start["outcome"] as? String ?? "") }
            })
        #expect(outcomes == [home.partner.id.rawValue: "optedOut", kim.id.rawValue: "queued"], "\(started.text)")
        #expect(started.json?["channelId"] == nil)
        #expect((started.json?["channelFallback"] as? String)?.contains("CannotCreateChannelConfig") == true, "\(started.text)")
        #expect(await eventually { home.setup.aps(kims).contains { $0["event"] as? String == "start" && $0["input-push-token"] as? Int == 1 } })
        #expect(home.setup.aps(hers).isEmpty, "she turned shopping cards off")
    }

    @Test func twentyClientsAtOnceLoseNoUpdateAndEverySnapshotIsConsistent() async throws {
        // Twenty connections at once: the server's threads take them.
        let home = try Household(.live)
        defer { home.stop() }
        let port = try home.server.port
        let token = home.setup.bearer
        var ids: [Int] = []
        for index in 0..<50 { ids.append(try #require(try home.add("item \(index)")["id"] as? Int)) }
        let itemIDs = ids
        let ready = try #require(try home.pull()["rev"] as? Int)
        #expect(ready == 50)

        // 20 clients, 5 changes each: even clients add items, odd ones check off their own items.
        let revs = Mutex<[Int]>([])
        let problems = Mutex<[String]>([])
        let done = Atomic<Bool>(false)
        let pulls = Atomic<Int>(0)
        let reader = Thread {
            var lastRev = 0
            while !done.load(ordering: .relaxed) {
                guard
                    let pull = try? TestHTTPConnection(port: port).request(
                        "GET", "/api/shopping/\(Self.week)", headers: ["Authorization": "Bearer \(token)"]
                    ).json, let rev = pull["rev"] as? Int, let items = pull["items"] as? [[String: Any]],
                    let state = pull["state"] as? [String: Any]
                else { continue }
                let checked = items.filter { $0["done"] as? Bool == true }.count
                if state["rev"] as? Int != rev || state["total"] as? Int != items.count || state["done"] as? Int != checked
                    || state["open"] as? Int != items.count - checked || rev < lastRev
                {
                    problems.withLock {
                        $0.append(
                            "rev \(rev) (after \(lastRev)): \(state["open"] ?? "?")/\(state["done"] ?? "?")/\(state["total"] ?? "?") vs \(items.count) items, \(checked) checked"
                        )
                    }
                }
                lastRev = rev
                pulls.add(1, ordering: .relaxed)
            }
        }
        reader.start()
        DispatchQueue.concurrentPerform(iterations: 20) { client in
            for step in 0..<5 {
                if step == 3 {
                    // Halfway, each client lets the reader check a few snapshots first (on a busy
                    // machine its thread may not have run yet), so they are checked while the writes go on.
                    let deadline = Date().addingTimeInterval(20)
                    while pulls.load(ordering: .relaxed) < 5 && Date() < deadline { usleep(1000) }
                }
                let connection = try? TestHTTPConnection(port: port)
                let response: TestHTTPConnection.Response?
                if client % 2 == 0 {
                    response = try? connection?.request(
                        "POST", "/api/shopping/\(Self.week)/items", headers: ["Authorization": "Bearer \(token)"],
                        json: #"{"label":"new \#(client)-\#(step)","price":1.5}"#
                    )
                } else {
                    let id = itemIDs[(client / 2) * 5 + step]
                    response = try? connection?.request(
                        "PATCH", "/api/shopping/items/\(id)", headers: ["Authorization": "Bearer \(token)"], json: #"{"done":true}"#
                    )
                }
                if let rev = response?.json?["rev"] as? Int, (200...201).contains(response?.status ?? 0) {
                    revs.withLock { $0.append(rev) }
                } else {
                    problems.withLock { $0.append("client \(client) step \(step): \(response?.status ?? 0) \(response?.text ?? "no answer")") }
                }
            }
        }
        done.store(true, ordering: .relaxed)
        while !reader.isFinished { try await Task.sleep(for: .milliseconds(5)) }

        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0 }.prefix(5))")
        #expect(pulls.load(ordering: .relaxed) >= 5, "the reader checked \(pulls.load(ordering: .relaxed)) snapshots while the clients wrote")
        let all = revs.withLock { $0 }.sorted()
        #expect(all == Array(51...150), "every change got its own revision: \(all.count) answers")
        let truth = try home.pull()
        #expect(truth["rev"] as? Int == 150, "the week's rev equals the number of changes")
        let state = try #require(truth["state"] as? [String: Any])
        #expect(state["total"] as? Int == 100 && state["done"] as? Int == 50 && state["open"] as? Int == 50)
        #expect(state["estEur"] as? Double == 75 && state["estPriced"] as? Int == 50)
    }
}
