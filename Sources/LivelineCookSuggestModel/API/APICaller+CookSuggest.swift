import Foundation
import LivelineModel

/// Meal planning for two (`docs/features/cook-suggest.md`): the calls its app makes. Every step
/// answers the session as the caller sees it (their card included); `by` is the acting member
/// when a device is shared. A step the session's state does not allow fails with status 409.
extension APICaller {
    /// Starts planning `date` (today when nil) with `partner` (solo when nil). The same create
    /// again while that session is open gives it back (`created: false`).
    public func createCookSuggestSession(date: String? = nil, partner: Int? = nil, by: Int? = nil) async throws -> CookSuggestSessionResponse {
        try await call(Routes.createCookSuggestSession, body: CreateCookSuggestSessionRequest(date: date, withUserId: partner, by: by))
    }

    /// The truth; `unchanged: true` (nothing else) when `sinceRev` is the current revision.
    public func cookSuggestSession(_ id: String, sinceRev: Int? = nil) async throws -> CookSuggestSessionResponse {
        let query = sinceRev.map { [URLQueryItem(name: "since_rev", value: String($0))] } ?? []
        return try await call(Routes.cookSuggestSession, parameters: ["id": id], query: query)
    }

    /// The session a deep link (`/cook-suggest/{id}`, the invitation's `link`; a query or fragment
    /// after it is ignored) opens, or nil when the link is not one — also when it is no
    /// ``DeepLink`` at all (a URL with a scheme, `//host`).
    public static func cookSuggestSessionID(fromLink link: String) -> String? {
        // A trailing slash names the same session.
        guard var segments = DeepLink(link)?.segments else { return nil }
        if segments.last?.isEmpty == true { segments.removeLast() }
        guard segments.count == 2, segments[0] == "cook-suggest", segments[1].hasPrefix("cs_") else { return nil }
        return String(segments[1])
    }

    /// The invited partner opens the session.
    @discardableResult
    public func joinCookSuggest(_ id: String, by: Int? = nil) async throws -> CookSuggestSessionResponse {
        try await call(Routes.joinCookSuggest, parameters: ["id": id], body: CookSuggestStepRequest(by: by))
    }

    /// The caller's answers, replacing earlier ones.
    @discardableResult
    public func answerCookSuggest(_ id: String, _ answers: CookSuggestAnswers) async throws -> CookSuggestSessionResponse {
        try await call(Routes.cookSuggestAnswers, parameters: ["id": id], body: answers)
    }

    /// Done answering.
    @discardableResult
    public func readyCookSuggest(_ id: String, by: Int? = nil) async throws -> CookSuggestSessionResponse {
        try await call(Routes.cookSuggestReady, parameters: ["id": id], body: CookSuggestStepRequest(by: by))
    }

    /// Picks a proposal: the partner's card asks "Vorschlag: …?".
    @discardableResult
    public func pickCookSuggest(_ id: String, proposal: String, by: Int? = nil) async throws -> CookSuggestSessionResponse {
        try await call(Routes.cookSuggestPick, parameters: ["id": id], body: CookSuggestProposalRequest(proposalId: proposal, by: by))
    }

    /// Confirms a proposal; when both confirmed the same, it is decided.
    @discardableResult
    public func confirmCookSuggest(_ id: String, proposal: String, by: Int? = nil) async throws -> CookSuggestSessionResponse {
        try await call(Routes.cookSuggestConfirm, parameters: ["id": id], body: CookSuggestProposalRequest(proposalId: proposal, by: by))
    }

    /// Leaves the session (the caller's card ends).
    @discardableResult
    public func leaveCookSuggest(_ id: String, by: Int? = nil) async throws -> CookSuggestSessionResponse {
        try await call(Routes.leaveCookSuggest, parameters: ["id": id], body: CookSuggestStepRequest(by: by))
    }

    /// Cancels the session (every card ends).
    @discardableResult
    public func cancelCookSuggest(_ id: String, by: Int? = nil) async throws -> CookSuggestSessionResponse {
        try await call(Routes.cancelCookSuggest, parameters: ["id": id], body: CookSuggestStepRequest(by: by))
    }
}
