import LivelineModel

/// The meal-planning routes (`docs/features/cook-suggest.md`, bearer token), declared once: the
/// server serves them, the SDK's calls (`APICaller+CookSuggest.swift`) print their paths.
extension Routes {
    public static let createCookSuggestSession = Route(.post, "/api/cook-suggest/sessions")
    public static let cookSuggestSession = Route(.get, "/api/cook-suggest/sessions/{id}")
    public static let joinCookSuggest = Route(.post, "/api/cook-suggest/sessions/{id}/join")
    public static let cookSuggestAnswers = Route(.put, "/api/cook-suggest/sessions/{id}/answers")
    public static let cookSuggestReady = Route(.post, "/api/cook-suggest/sessions/{id}/ready")
    public static let cookSuggestPick = Route(.post, "/api/cook-suggest/sessions/{id}/pick")
    public static let cookSuggestConfirm = Route(.post, "/api/cook-suggest/sessions/{id}/confirm")
    public static let leaveCookSuggest = Route(.post, "/api/cook-suggest/sessions/{id}/leave")
    public static let cancelCookSuggest = Route(.post, "/api/cook-suggest/sessions/{id}/cancel")

    /// The meal-planning routes, in documentation order.
    public static let cookSuggest: [Route] = [
        createCookSuggestSession, cookSuggestSession, joinCookSuggest, cookSuggestAnswers, cookSuggestReady, cookSuggestPick, cookSuggestConfirm,
        leaveCookSuggest, cancelCookSuggest,
    ]
}
