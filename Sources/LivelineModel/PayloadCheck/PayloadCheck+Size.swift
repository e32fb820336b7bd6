import Foundation

extension PayloadCheck {
    /// The body limit of the destination, and ActivityKit's 4 KB for attributes plus content
    /// state; over a limit, the error gives the byte count and the largest fields.
    /// Related APNs documentation: "Generating a remote notification" (4096 bytes), broadcast
    /// 5120 bytes; "Displaying live data with Live Activities" (4 KB); `docs/apns.md` §1.5.
    func checkSizes(
        root: [String: JSONValue], aps: [String: JSONValue], bodyBytes: Int, into report: inout PayloadCheckReport, problems: inout [PayloadProblem]
    ) {
        let activityData = [aps["content-state"], aps["attributes"]].compactMap { $0 }
        let activityBytes = activityData.reduce(0) { $0 + $1.compactSize }
        report.activityDataBytes = activityBytes

        if bodyBytes > destination.bodyLimit {
            var message =
                "is \(bodyBytes) bytes, over the \(destination.bodyLimit)-byte limit of a \(destination.rawValue) push by \(bodyBytes - destination.bodyLimit) (APNs answers 413 PayloadTooLarge)"
            let compact = JSONValue.object(root).compactSize
            if compact <= destination.bodyLimit {
                message += "; without whitespace it is \(compact) bytes and would fit"
            }
            message += "; largest fields: " + Self.describe(Self.largestFields(root: root, aps: aps, activityDataOnly: false))
            problems.append(PayloadProblem(.bodyTooLarge, at: "", message))
        }
        if activityBytes > Self.activityDataLimit {
            problems.append(
                PayloadProblem(
                    .activityDataTooLarge, at: "aps",
                    "attributes plus content-state are \(activityBytes) bytes, over ActivityKit's \(Self.activityDataLimit)-byte budget by \(activityBytes - Self.activityDataLimit); largest fields: "
                        + Self.describe(Self.largestFields(root: root, aps: aps, activityDataOnly: true))))
        }
    }

    /// The three largest fields by compact size (key, quotes, colon and value).
    static func largestFields(root: [String: JSONValue], aps: [String: JSONValue], activityDataOnly: Bool) -> [(path: String, bytes: Int)] {
        func size(_ key: String, _ value: JSONValue) -> Int { key.utf8.count + 3 + value.compactSize }
        var fields: [(path: String, bytes: Int)] = []
        for container in ["content-state", "attributes"] {
            guard let members = aps[container]?.objectValue else { continue }
            fields += members.map { ("aps.\(container).\($0.key)", size($0.key, $0.value)) }
        }
        if !activityDataOnly {
            fields += aps.filter { $0.key != "content-state" && $0.key != "attributes" }.map { ("aps.\($0.key)", size($0.key, $0.value)) }
            fields += root.filter { $0.key != "aps" }.map { ($0.key, size($0.key, $0.value)) }
        }
        return Array(fields.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.path < $1.path }.prefix(3))
    }

    static func describe(_ fields: [(path: String, bytes: Int)]) -> String {
        fields.map { "\($0.path) (\($0.bytes) bytes)" }.joined(separator: ", ")
    }
}
