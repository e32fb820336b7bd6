/// The body of a channel creation, `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`,
/// read leniently so each wrong field gets its own reason.
///
/// Related APNs documentation: "Sending channel management requests to APNs" (`docs/apns.md` §1.8).
struct ChannelCreationBody: Decodable {
    /// A JSON value as far as the checks care.
    enum Field: Decodable {
        case integer(Int)
        case string(String)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                _ = value
                self = .other
            } else if let value = try? container.decode(Int.self) {
                self = .integer(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else {
                self = .other
            }
        }
    }

    var storagePolicy: Field?
    var pushType: Field?

    private enum CodingKeys: String, CodingKey {
        case storagePolicy = "message-storage-policy"
        case pushType = "push-type"
    }
}
