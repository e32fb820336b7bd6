import Foundation
import LivelineModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's connection to a Liveline server (`docs/sdk.md`, "The client SDK library"): it
/// registers push tokens, pulls contexts (`?since_rev=`), reports receipts, dismissals and the
/// user's opt-in, and reads the inbox. Paths come from the shared `Routes`, bodies from the shared
/// model, so app and server cannot disagree.
public final class LivelineClient: APICaller, Sendable {
    public let baseURL: URL
    /// This device's id for the registry (one per app install); nil lets the server use the
    /// bearer token's device session.
    public let deviceID: String?
    private let bearerToken: String
    private let session: URLSession
    /// How long one call may take before it fails as a network error.
    public let timeout: TimeInterval
    /// The APNs environment this build's tokens belong to, sent with every registration (nil: none
    /// is sent and the server tries its default one first, docs/operations.md, "Both APNs environments").
    public let environment: PushEnvironment?

    /// The environment of the running build's push tokens, as its entitlement says: on an
    /// iPhone, the `aps-environment` of the app's `embedded.mobileprovision` (`development` →
    /// `.sandbox`: a build run from Xcode; `production`: ad hoc), and `.production` when the app
    /// has no profile (TestFlight and the App Store strip it); `.sandbox` in the simulator.
    /// Elsewhere (macOS, Linux) a guess from the build: `.sandbox` when compiled with `DEBUG`.
    /// Pass the environment to the initializer instead where you know better.
    public static var buildEnvironment: PushEnvironment {
        #if targetEnvironment(simulator)
        return .sandbox
        #elseif os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        guard let url = Bundle.main.url(forResource: "embedded", withExtension: "mobileprovision"), let profile = try? Data(contentsOf: url)
        else { return .production }
        return environment(inProvisioningProfile: profile) ?? .production
        #elseif DEBUG
        return .sandbox
        #else
        return .production
        #endif
    }

    /// The `aps-environment` entitlement of a provisioning profile (a signed container around a
    /// property list): `.sandbox` for `development`, `.production` for `production`, nil when it
    /// has none or cannot be read.
    public static func environment(inProvisioningProfile data: Data) -> PushEnvironment? {
        guard let start = data.range(of: Data("<?xml".utf8)) ?? data.range(of: Data("<plist".utf8)),
            let end = data.range(of: Data("</plist>".utf8), in: start.lowerBound..<data.endIndex),
            let plist = try? PropertyListSerialization.propertyList(from: data[start.lowerBound..<end.upperBound], format: nil),
            let entitlements = (plist as? [String: Any])?["Entitlements"] as? [String: Any],
            let value = entitlements["aps-environment"] as? String
        else { return nil }
        switch value {
        case "development": return .sandbox
        case "production": return .production
        default: return nil
        }
    }

    /// - Parameters:
    ///   - baseURL: the server, e.g. `https://liveline.example.com`.
    ///   - bearerToken: the user's token (from `liveline users add`).
    ///   - deviceID: a stable id of this app install (e.g. `identifierForVendor`).
    ///   - environment: the APNs environment of this build's tokens (default ``buildEnvironment``;
    ///     nil sends none).
    ///   - session: the URL session (default `.shared`).
    ///   - timeout: how long one call may take (default 30 s).
    public init(
        baseURL: URL, bearerToken: String, deviceID: String? = nil, environment: PushEnvironment? = LivelineClient.buildEnvironment,
        session: URLSession = .shared, timeout: TimeInterval = 30
    ) {
        self.baseURL = baseURL
        self.bearerToken = bearerToken
        self.deviceID = deviceID
        self.environment = environment
        self.session = session
        self.timeout = timeout
    }

    // MARK: Push tokens

    /// Registers a push token (idempotent: call it on every launch with every token you have).
    /// An empty token is refused here, never sent: a registration never deletes anything.
    /// `environment` overrides the client's ``environment`` for this token. `contractFingerprint`:
    /// the fingerprint of the type this build was compiled with
    /// (``LivelineModel/ContractSchema/fingerprint(attributes:contentState:typeName:)``), for a Live
    /// Activity token, so the server never sends this build a state it cannot decode.
    /// `activityID`: an update token's `Activity.id`, which the activity's reports name too.
    @discardableResult
    public func register(
        _ kind: PushTokenKind, token: String, contextKey: String? = nil, attributesType: String? = nil,
        environment: PushEnvironment? = nil, frequentPushesEnabled: Bool? = nil, contractFingerprint: String? = nil, activityID: String? = nil
    ) async throws -> RegisterTokenResponse {
        guard !token.isEmpty else { throw LivelineClientError.invalidArgument("an empty \(kind.rawValue) token is not registered") }
        let body = RegisterTokenRequest(
            kind: kind, token: token, contextKey: contextKey, attributesType: attributesType, environment: environment ?? self.environment,
            deviceID: deviceID, frequentPushesEnabled: frequentPushesEnabled, contractFingerprint: contractFingerprint, activityID: activityID
        )
        return try await call(Routes.registerToken, body: body)
    }

    /// Registers the widget extension's WidgetKit push token with the kinds of its widgets (a
    /// `widgets` token): call it from `WidgetPushHandler.pushTokenDidChange(_:widgets:)`. The server
    /// then sends the widgets a `content-changed` push, paced, when a context they show changes
    /// (`docs/sdk.md`, "Widget pushes"). Refused here, never sent, without a token or a kind.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    @discardableResult
    public func register(widgets registration: WidgetPushRegistration, environment: PushEnvironment? = nil) async throws -> RegisterTokenResponse {
        guard !registration.token.isEmpty, !registration.kinds.isEmpty else {
            throw LivelineClientError.invalidArgument("a widgets token is registered with its token and at least one widget kind")
        }
        let body = RegisterTokenRequest(
            kind: .widgets, token: registration.token, environment: environment ?? self.environment, deviceID: deviceID,
            widgetKinds: registration.kinds)
        return try await call(Routes.registerToken, body: body)
    }

    /// Removes a token of this household (e.g. after the user logged out).
    @discardableResult
    public func unregister(token: String) async throws -> UnregisterTokenResponse {
        guard !token.isEmpty else { throw LivelineClientError.invalidArgument("an empty token is not sent") }
        return try await call(Routes.unregisterToken, body: RegisterTokenRequest(kind: nil, token: token))
    }

    // MARK: Contexts

    /// Pull-reconcile (`docs/engine.md`): `.unchanged` when `sinceRev` is the current revision (the
    /// server computes nothing else), else the whole truth.
    public func pull(contextKey: String, sinceRev: Int?) async throws -> PullResult<JSONValue> {
        let query = sinceRev.map { [URLQueryItem(name: "since_rev", value: String($0))] } ?? []
        let response: ContextSnapshotResponse = try await call(Routes.pullContext, parameters: ["key": contextKey], query: query)
        if response.unchanged { return .unchanged(rev: response.rev) }
        guard let state = response.contentState else {
            throw LivelineClientError.unexpectedResponse("the snapshot of \(contextKey) has no contentState")
        }
        return .snapshot(
            Snapshot(
                contextKey: response.key, rev: response.rev, state: state, ended: response.state == .ended, receivedAt: Date(),
                dismissalDate: response.dismissalAt
            ))
    }

    /// ``pull(contextKey:sinceRev:)`` with the content state decoded as the widget decodes it
    /// (`Contract.ContentState`, default `JSONDecoder`).
    public func pull<Contract: LiveActivityContract>(
        _ contract: Contract.Type, contextKey: String, sinceRev: Int?
    ) async throws -> PullResult<Contract.ContentState> {
        switch try await pull(contextKey: contextKey, sinceRev: sinceRev) {
        case .unchanged(let rev):
            return .unchanged(rev: rev)
        case .snapshot(let snapshot):
            do {
                let state = try JSONDecoder().decode(Contract.ContentState.self, from: snapshot.state.compactJSON)
                return .snapshot(
                    Snapshot(
                        contextKey: snapshot.contextKey, rev: snapshot.rev, state: state, ended: snapshot.ended, receivedAt: snapshot.receivedAt,
                        dismissalDate: snapshot.dismissalDate))
            } catch {
                throw LivelineClientError.unexpectedResponse("the content state of \(contextKey) does not decode as \(Contract.typeName): \(error)")
            }
        }
    }

    // MARK: Reports

    /// Tells the server this device rendered revision `rev` (the timeline shows it beside what was sent).
    @discardableResult
    public func reportReceipt(contextKey: String, rev: Int) async throws -> ReceiptResponse {
        try await call(Routes.activityReceipt, body: ReceiptReport(contextKey: contextKey, rev: rev, deviceID: deviceID))
    }

    /// Tells the server the user dismissed the context's activity (no new start for them unless asked).
    @discardableResult
    public func reportDismissed(contextKey: String) async throws -> DismissedResponse {
        try await call(Routes.activityDismissed, body: DismissedReport(contextKey: contextKey))
    }

    /// Sends the user's "show Live Activities" setting for one activity type; the server never
    /// push-starts a card of a type that is off.
    @discardableResult
    public func setLiveActivities(enabled: Bool, for attributesType: String) async throws -> [String: Bool] {
        let response: OptInsResponse = try await call(Routes.setOptIn, body: OptInRequest(attributesType: attributesType, enabled: enabled))
        return response.preferences
    }

    // MARK: Inbox

    /// The user's notifications, newest first.
    public func notifications() async throws -> [NotificationItem] {
        let response: NotificationsResponse = try await call(Routes.notifications)
        return response.notifications
    }

    /// Marks one notification read.
    public func markRead(notificationID: Int) async throws {
        let _: NotificationReadResponse = try await call(Routes.readNotification, parameters: ["id": String(notificationID)])
    }

    // MARK: The request path

    /// Sends `route` with the bearer token; a non-2xx answer throws `LivelineClientError.server`
    /// with the server's error body (`APICaller`).
    public func call<Response: Decodable>(
        _ route: Route, parameters: [String: String], query: [URLQueryItem], encodedBody body: Data?
    ) async throws -> Response {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw LivelineClientError.invalidArgument("the base URL \(baseURL) cannot take a path")
        }
        components.percentEncodedPath = components.percentEncodedPath.trimmingSuffix("/") + route.path(parameters)
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw LivelineClientError.invalidArgument("no URL for \(route)") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = route.method.rawValue
        request.setValue("Bearer \(bearerToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw LivelineClientError.network(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw LivelineClientError.unexpectedResponse("not an HTTP answer") }
        guard (200..<300).contains(http.statusCode) else {
            if let problem = try? APICoding.makeDecoder().decode(ErrorBody.self, fromUntrusted: data) {
                throw LivelineClientError.server(
                    status: http.statusCode, code: problem.error.code, message: problem.error.message, field: problem.error.field
                )
            }
            throw LivelineClientError.server(
                status: http.statusCode, code: "http\(http.statusCode)", message: "the server answered \(http.statusCode)", field: nil)
        }
        do {
            return try APICoding.makeDecoder().decode(Response.self, fromUntrusted: data)
        } catch {
            throw LivelineClientError.unexpectedResponse("\(route) answered a body that does not decode as \(Response.self): \(error)")
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
