import Foundation

/// What is wrong with a GTFS feed, the way a validator reports it (notice code, severity, how
/// often, the first samples with file and line). A feed with errors is not loaded; warnings are
/// reported and the feed loads.
public struct GTFSReport: Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error = "ERROR"
        case warning = "WARNING"

        public static func < (left: Severity, right: Severity) -> Bool { left == .error && right == .warning }
    }

    public struct Sample: Sendable, Hashable {
        public var file: String
        /// The line of the file (the header is line 1); nil for what concerns a whole file.
        public var line: Int?
        public var message: String
    }

    public struct Notice: Sendable {
        public var code: String
        public var severity: Severity
        public var count: Int
        /// The first ``GTFSReport/sampleLimit``.
        public var samples: [Sample]
    }

    /// Samples kept per notice code.
    public static let sampleLimit = 5

    private(set) var byCode: [String: Notice] = [:]

    /// Every notice, errors first, then by code.
    public var notices: [Notice] {
        byCode.values.sorted { ($0.severity, $0.code) < ($1.severity, $1.code) }
    }

    public var hasErrors: Bool { byCode.values.contains { $0.severity == .error } }

    /// The count of `code` (0 when there is none).
    public func count(_ code: String) -> Int { byCode[code]?.count ?? 0 }

    mutating func add(_ code: String, _ severity: Severity, file: String, line: Int? = nil, _ message: String) {
        var notice = byCode[code] ?? Notice(code: code, severity: severity, count: 0, samples: [])
        notice.count += 1
        if notice.samples.count < Self.sampleLimit { notice.samples.append(Sample(file: file, line: line, message: message)) }
        byCode[code] = notice
    }

    /// One line per notice (code, severity, count), then its samples indented:
    /// `ERROR foreign_key_violation ×3` / `  stop_times.txt:12: stop_id 'x' is not in stops.txt`.
    public var description: String {
        guard !byCode.isEmpty else { return "no problems found" }
        return notices.map { notice in
            (["\(notice.severity.rawValue) \(notice.code) ×\(notice.count)"]
                + notice.samples.map { "  \($0.file)\($0.line.map { ":\($0)" } ?? ""): \($0.message)" }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
