import Foundation
import LivelineStore
import Testing

@testable import LivelineCookSuggest

/// What follows a meal-planning step, as a pure function of the session read back: no database.
@Suite struct CookSuggestFollowUpTests {
    static let anna = UserID(1)
    static let ben = UserID(2)

    static func row(_ pairs: KeyValuePairs<String, SQLValue>) -> Row {
        Row(columns: Dictionary(uniqueKeysWithValues: pairs.enumerated().map { ($0.element.key, $0.offset) }), values: pairs.map(\.value))
    }

    static func participant(
        _ user: UserID, present: Bool = true, ready: Bool = false, confirmed: String? = nil
    ) throws
        -> CookSuggestParticipantRecord
    {
        try CookSuggestParticipantRecord(
            row: row([
                "user_id": .integer(Int64(user.rawValue)), "role": .text(user == anna ? "initiator" : "partner"), "joined": .integer(1),
                "present": .integer(present ? 1 : 0), "ready": .integer(ready ? 1 : 0), "answers": .text("{}"),
                "pick": confirmed.map(SQLValue.text) ?? .null, "confirmed": confirmed.map(SQLValue.text) ?? .null,
            ]))
    }

    static func view(_ state: CookSuggestState, _ participants: [CookSuggestParticipantRecord]) throws -> CookSuggestSessionView {
        let session = try CookSuggestSession(
            row: row([
                "id": .text("cs_1"), "household_id": .integer(1), "day": .text("2026-06-18"), "initiator_id": .integer(1),
                "partner_id": .integer(2), "state": .text(state.rawValue), "rev": .integer(3), "decided_recipe_id": .null,
                "cancel_reason": .null, "created_at": .integer(0), "active_at": .integer(0), "ended_at": .null,
            ]))
        return CookSuggestSessionView(session: session, participants: participants, proposals: [], users: [:])
    }

    @Test func everyoneReadyStartsGeneratingAndOneNotReadyKeepsAnswering() throws {
        let ready = CookSuggestDomain.followUp(
            after: .ready, by: Self.ben,
            in: try Self.view(.answering, [Self.participant(Self.anna, ready: true), Self.participant(Self.ben, ready: true)]))
        #expect(ready == .init(state: .generating, note: "ready by 2", job: .generate))
        let waiting = CookSuggestDomain.followUp(
            after: .ready, by: Self.ben, in: try Self.view(.answering, [Self.participant(Self.anna), Self.participant(Self.ben, ready: true)]))
        #expect(waiting == .init(state: .answering, note: "ready by 2"))
    }

    @Test func bothConfirmingOneProposalFinalizesIt() throws {
        let agreed = try Self.view(.proposed, [Self.participant(Self.anna, confirmed: "curry"), Self.participant(Self.ben, confirmed: "curry")])
        #expect(
            CookSuggestDomain.followUp(after: .confirm, by: Self.ben, in: agreed)
                == .init(state: .finalizing, note: "confirm by 2", job: .finalize, decided: "curry"))
        let apart = try Self.view(.proposed, [Self.participant(Self.anna, confirmed: "curry"), Self.participant(Self.ben, confirmed: "pasta")])
        #expect(CookSuggestDomain.followUp(after: .confirm, by: Self.ben, in: apart).state == .proposed)
    }

    @Test func aCancelOrTheLastOneLeavingEndsTheSession() throws {
        let both = try Self.view(.answering, [Self.participant(Self.anna), Self.participant(Self.ben)])
        #expect(
            CookSuggestDomain.followUp(after: .cancel, by: Self.anna, in: both)
                == .init(state: .cancelled, reason: "cancelled", note: "cancelled by 1"))
        let gone = try Self.view(.answering, [Self.participant(Self.anna, present: false), Self.participant(Self.ben, present: false)])
        #expect(
            CookSuggestDomain.followUp(after: .leave, by: Self.ben, in: gone)
                == .init(state: .cancelled, reason: "left", note: "the last participant left"))
    }
}
