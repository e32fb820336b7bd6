/// A storage failure: a machine `code` to branch on and a message for a person.
///
/// Messages carry the database's own explanation and, where useful, the SQL text, but never the
/// values bound to it: those may be push tokens or token hashes (`docs/engine.md`, "Auth": tokens are
/// redacted in logs).
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Backends map their own codes onto these.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A UNIQUE, NOT NULL, CHECK or foreign key constraint refused the change.
        public static let constraint = Code(rawValue: "constraint")
        /// The database stayed locked by another connection or process past the busy timeout.
        public static let busy = Code(rawValue: "busy")
        /// The database was written by a newer Liveline than this build.
        public static let schemaTooNew = Code(rawValue: "schemaTooNew")
        /// The file could not be opened, read or written (permissions, read-only, a failing disk).
        public static let io = Code(rawValue: "io")
        /// The disk holding the database is full: the write was rolled back, nothing of it
        /// changed, and writes succeed again once space is freed; reads keep working
        /// (`docs/reliability.md`, "Disk full").
        public static let storageFull = Code(rawValue: "storageFull")
        /// The database server could not be reached, or the connection to it broke (a network
        /// partition, a server down): a write whose commit was under way may or may not have been
        /// stored. Tried again once the server answers (`docs/reliability.md`, "Network faults").
        public static let unavailable = Code(rawValue: "unavailable")
        /// A row that had to exist does not.
        public static let notFound = Code(rawValue: "notFound")
        /// The file is not a database or is damaged.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The store was used wrongly: bad SQL, wrong parameter count, several statements at once.
        public static let misuse = Code(rawValue: "misuse")
        /// A result column is missing or holds another type than the one asked for.
        public static let column = Code(rawValue: "column")
        /// An argument cannot be stored as given (e.g. a push-to-start token without attributes type).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// A row with that key exists already (a context created twice).
        public static let alreadyExists = Code(rawValue: "alreadyExists")
        /// A context exists under that key with another activity type; its type never changes.
        public static let activityTypeChanged = Code(rawValue: "activityTypeChanged")
        /// The context has ended; its content no longer changes through the generic API.
        public static let contextEnded = Code(rawValue: "contextEnded")
        /// The change conflicts with how the row is owned or used (a household's context written
        /// through the generic API).
        public static let conflict = Code(rawValue: "conflict")
        /// Any other database failure.
        public static let database = Code(rawValue: "database")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
