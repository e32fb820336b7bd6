/// A refusal or failure of the engine: a machine `code` to branch on (the API maps each to one
/// status, in one place), a message for a person, and the field of the request it concerns
/// when there is one. Messages never carry a push token or key.
public struct EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// What the operation is about does not exist (a context, a user, a notification).
        public static let notFound = Code(rawValue: "notFound")
        /// A context exists under that key with another activity type; its type never changes.
        public static let activityTypeChanged = Code(rawValue: "activityTypeChanged")
        /// The context has ended; its content no longer changes and nothing starts it again.
        public static let contextEnded = Code(rawValue: "contextEnded")
        /// The change conflicts with who owns the context (a household's written through `/v1`).
        public static let conflict = Code(rawValue: "conflict")
        /// The push it would send is one the phone drops (the payload check refused it).
        public static let payloadRefused = Code(rawValue: "payloadRefused")
        /// A contract version that would make an installed app drop pushes, or one that clashes
        /// with what is stored (`docs/contracts.md`, "Bring your own Live Activity").
        public static let contractRefused = Code(rawValue: "contractRefused")
        /// A well-formed value of the request outside what the engine takes now (`field` names
        /// it): a start scheduled in the past or beyond the horizon, by the server's clock.
        public static let outOfRange = Code(rawValue: "outOfRange")
        /// Anything else that went wrong inside the engine.
        public static let failed = Code(rawValue: "failed")
    }

    public var code: Code
    public var message: String
    /// The request's field the refusal is about (e.g. `alert`, `contentState.delay`).
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// A failure inside the engine (``Code/failed``).
    public init(_ message: String) { self.init(.failed, message) }

    public var description: String { message }
}
