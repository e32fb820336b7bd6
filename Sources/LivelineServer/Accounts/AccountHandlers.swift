import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// `GET /api/me` and `GET /api/users/{userId}`: who the caller is and who shares their household;
/// `POST /api/me/sign-out`: the caller's session ends.
/// A user of another household is answered 404, exactly like one that does not exist.
struct AccountHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine

    func addRoutes(to router: inout Router) {
        router.add(Routes.me) { request in
            let caller = try auth.caller(of: request)
            let members = try engine.members(householdID: caller.householdID)
            return try .json(
                MeResponse(
                    user: caller.user.profile, householdName: caller.user.householdName,
                    members: members.map(\.profile)
                ))
        }
        router.add(Routes.signOut) { request in
            try auth.endSession(of: request)
            return .jsonBytes(Array(#"{"signedOut":true}"#.utf8))
        }
        router.add(Routes.user) { request in
            let caller = try auth.caller(of: request)
            let id = UserID(try CommonFields.userID.integer(text: request.parameter("userId")))
            guard let user = try engine.user(id: id), user.householdID == caller.householdID else {
                throw HTTPError.notFound("no user \(id) in your household")
            }
            return try .json(user.profile)
        }
    }
}
