/// The one error shape of every failing Liveline response:
/// `{"error": {"code": "badRequest", "message": "…", "field": "kind"}}`.
public struct ErrorBody: Codable, Sendable, Hashable {
    public struct Detail: Codable, Sendable, Hashable {
        /// A machine-readable code, e.g. `badRequest`, `unauthorized`, `notFound`.
        public var code: String
        /// What went wrong and what was expected, for a person.
        public var message: String
        /// The request field that was wrong, when one was (a JSON key path such as `keys.auth`).
        public var field: String?

        public init(code: String, message: String, field: String? = nil) {
            self.code = code
            self.message = message
            self.field = field
        }
    }

    public var error: Detail

    public init(code: String, message: String, field: String? = nil) {
        self.error = Detail(code: code, message: message, field: field)
    }
}
