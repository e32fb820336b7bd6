import Foundation

extension PayloadCheck {
    /// Checks an ordinary alert push: at most 4096 bytes, a `relevance-score` from 0 to 1,
    /// something to show, and a `link` that is a ``DeepLink`` (an app path: the one form the app
    /// reads). Related APNs documentation: "Generating a remote notification"; `docs/apns.md` §1.9.
    public func check(_ alert: AlertPushPayload) -> PayloadCheckReport {
        let limit = PushDestination.device.bodyLimit
        let body: Data
        do {
            body = try alert.encoded()
        } catch {
            return PayloadCheckReport(
                bodyBytes: 0, bodyLimit: limit, problems: [PayloadProblem(.encodingFailed, at: "", "could not be encoded: \(error)")])
        }
        var report = PayloadCheckReport(bodyBytes: body.count, bodyLimit: limit)
        if body.count > limit {
            var fields: [(path: String, bytes: Int)] = []
            if let root = (try? JSONValue(json: body))?.objectValue {
                fields = root.map { ($0.key, $0.key.utf8.count + 3 + $0.value.compactSize) }
                if let aps = root["aps"]?.objectValue {
                    fields += aps.map { ("aps.\($0.key)", $0.key.utf8.count + 3 + $0.value.compactSize) }
                }
            }
            fields = Array(fields.filter { $0.path != "aps" }.sorted { $0.bytes > $1.bytes }.prefix(3))
            report.problems.append(
                PayloadProblem(
                    .bodyTooLarge, at: "",
                    "is \(body.count) bytes, over the \(limit)-byte limit of an alert push by \(body.count - limit); largest fields: \(Self.describe(fields))"
                ))
        }
        if let score = alert.relevanceScore, !(0...1).contains(score) {
            report.problems.append(
                PayloadProblem(.invalidValue, at: "aps.relevance-score", "is \(score); for ordinary notifications it is from 0 to 1"))
        }
        if let link = alert.link, !DeepLink.isValid(link) {
            report.problems.append(PayloadProblem(.invalidValue, at: "link", "is '\(link.prefix(40))'; it must be \(DeepLink.rule)"))
        }
        if alert.title == nil, alert.body == nil {
            report.problems.append(
                PayloadProblem(.missingKey, at: "aps.alert", "has neither title nor body; the notification would show nothing", severity: .warning))
        }
        for key in alert.custom.keys.sorted() where key == "aps" || key == "link" {
            report.problems.append(
                PayloadProblem(
                    .invalidValue, at: key, "is reserved (aps is the envelope, link the deep link field) and is not sent from custom",
                    severity: .warning))
        }
        return report
    }
}
