/// One thing wrong with a push payload: where (a key path such as `aps.content-state.nextStop`),
/// a machine code, and a message that says what a phone would do and how to fix it.
public struct PayloadProblem: Sendable, Hashable, CustomStringConvertible {
    /// Whether the payload is refused (`error`) or only worth a look (`warning`).
    public enum Severity: String, Sendable, Hashable {
        /// The payload is refused: the phone or APNs would drop it, mostly without a word.
        case error
        /// The payload is accepted, but something in it is ignored or suspicious.
        case warning
    }

    /// What kind of problem it is; stable strings for scripts and logs.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The body is not JSON.
        case invalidJSON
        /// A key that must be there is not (the phone drops the whole push).
        case missingKey
        /// `null` where a non-optional value is required.
        case nullValue
        /// A value of the wrong JSON type.
        case typeMismatch
        /// A value of the right type that is not allowed (an unknown enum case, `input-push-token: 2`).
        case invalidValue
        /// A key nobody reads (the phone ignores it); often a misspelt or renamed key.
        case unknownKey
        /// A key the phone ignores for this event (e.g. `attributes` on `update`).
        case ignoredKey
        /// The phone's default `JSONDecoder` fails where the key-by-key check saw nothing.
        case decodingFailed
        /// The payload names no contract and none was given.
        case unknownContract
        /// `attributes-type` is not the name of a known contract type.
        case unknownAttributesType
        /// `attributes-type` names another contract than the one given.
        case attributesTypeMismatch
        /// `event` is not `start`, `update` or `end`.
        case unknownEvent
        /// The whole body is over the APNs limit (4096 device, 5120 broadcast).
        case bodyTooLarge
        /// Attributes plus content state are over ActivityKit's 4 KB.
        case activityDataTooLarge
        /// A content-state `Date` given as text; Swift's default decoder wants a number.
        case dateAsString
        /// A content-state `Date` more than ten years from now (UNIX seconds or milliseconds).
        case implausibleDate
        /// A header date (`timestamp`, `stale-date`, `dismissal-date`) in milliseconds.
        case dateInMilliseconds
        /// A header date that is not UNIX seconds (e.g. seconds since 2001).
        case dateNotUnixSeconds
        /// A `timestamp` more than 8 hours ahead: the phone drops such an update.
        case timestampInFuture
        /// A start whose `stale-date` is already past: created stale, never presented.
        case staleDateInPast
        /// `dismissal-date` on an event other than `end`.
        case dismissalDateNotOnEnd
        /// `input-push-token` and `input-push-channel` together.
        case pushTokenAndChannel
        /// A broadcast push that tries to start an activity.
        case startOnBroadcast
        /// The typed payload could not even be encoded.
        case encodingFailed
    }

    public var severity: Severity
    public var code: Code
    /// Dotted key path with `[i]` for array elements (as `DecodingProblem` names them); empty for
    /// the document itself.
    public var keyPath: String
    public var message: String

    public init(_ code: Code, at keyPath: String, _ message: String, severity: Severity = .error) {
        self.severity = severity
        self.code = code
        self.keyPath = keyPath
        self.message = message
    }

    /// `error [missingKey] aps.content-state.nextStop: is missing …`
    public var description: String {
        "\(severity.rawValue) [\(code.rawValue)] \(keyPath.isEmpty ? "(body)" : keyPath): \(message)"
    }
}
