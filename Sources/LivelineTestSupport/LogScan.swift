import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Looks through log lines for secrets: what must never be logged (docs/operations.md, "Logs": tokens and keys
/// appear by prefix at most). A finding names the file, the line and the kind of secret, and shows
/// only the first characters of what it found.
public struct LogScan {
    /// A secret in a log line.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var kind: String
        /// The first characters of what was found, never the whole secret.
        public var excerpt: String

        public var description: String { "\(file):\(line): \(kind) (\(excerpt)…)" }
    }

    /// What was read and found.
    public struct Report: Sendable {
        public var files = 0
        public var lines = 0
        public var bytes = 0
        public var findings: [Finding] = []
    }

    /// A match with fewer different characters than this is filler, not a secret.
    static let fewestDistinctCharacters = 4

    /// Secrets shorter than this are not looked for by their text (they would match by chance).
    public static let shortestSecret = 12

    /// What any Liveline secret looks like, whoever made it. Each pattern comes with text every
    /// match contains (`nil`: the push token's run of hex, checked by counting): a line without it
    /// is not searched with the pattern (a whole suite's logs are 100,000 lines and more).
    let patterns: [(kind: String, pattern: Regex<Substring>, mustContain: [UInt8]?)] = [
        // A user's bearer token (`ll_…`) or a generated admin key (`lla_…`): 32 random bytes, base64url.
        ("bearer token or admin key", /\blla?_[A-Za-z0-9_\-]{20,}/, Array("ll".utf8) + [0]),
        // An APNs device, push-to-start or channel-less token: at least 32 bytes as hex. Nothing
        // else the server logs is that long a run of hex (ids are UUIDs, hashes are not logged).
        ("push token", /[0-9A-Fa-f]{64,}/, nil),
        ("Authorization header", /[Bb]earer [A-Za-z0-9_\-.~+\/]{8,}/, Array("earer ".utf8) + [0]),
        ("PEM key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/, Array("-----BEGIN ".utf8) + [0]),
        // The dashboard's session cookie (`v1.<expires>.<nonce>.<MAC>`) and its one-time sign-in link.
        ("dashboard session", /v1\.[0-9]{9,}\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{20,}/, Array("v1.".utf8) + [0]),
        ("dashboard sign-in link", /once=[A-Za-z0-9_\-]{20,}/, Array("once=".utf8) + [0]),
        // A password in a database URL (`postgresql://user:password@host`).
        ("password in a URL", /:\/\/[^\/\s:@"]+:[^@\s\/"]+@/, Array("://".utf8) + [0]),
    ]

    /// The length of the pattern "push token" looks for.
    static let shortestHexRun = 64

    /// The secrets to look for by their exact text (admin keys, the lines of a VAPID key's PEM).
    public var secrets: Set<String> { didSet { secretBytes = secrets.map { ($0, Array($0.utf8) + [0]) } } }
    /// ``secrets`` with their bytes.
    private var secretBytes: [(String, [UInt8])] = []

    public init(secrets: some Sequence<String> = []) {
        var kept = Set<String>()
        for secret in secrets {
            // A PEM is looked for by each of its base64 lines; anything else whole.
            if secret.contains("-----BEGIN") {
                for line in secret.split(whereSeparator: \.isNewline) where !line.hasPrefix("-----") && line.count >= Self.shortestSecret {
                    kept.insert(String(line))
                }
            } else if secret.count >= Self.shortestSecret {
                kept.insert(secret)
            }
        }
        self.secrets = kept
        secretBytes = kept.map { ($0, Array($0.utf8) + [0]) }
    }

    /// The findings of one line.
    public func findings(in line: Substring, file: String, number: Int) -> [Finding] {
        var found: [Finding] = []
        let bytes = Array(line.utf8) + [0]
        for (kind, pattern, mustContain) in patterns {
            if let mustContain {
                guard Self.contains(bytes, mustContain) else { continue }
            } else if Self.longestHexRun(bytes) < Self.shortestHexRun {
                continue
            }
            // A run of one or two characters (`000…`, as a test generator writes into a path) is
            // filler, not a secret: a random token or key uses many.
            if let match = line.matches(of: pattern).first(where: { Set($0.output).count >= Self.fewestDistinctCharacters }) {
                found.append(Finding(file: file, line: number, kind: kind, excerpt: String(match.output.prefix(6))))
            }
        }
        // Byte by byte: `String.contains` goes through Foundation's NSString search, far too slow
        // over a whole suite's logs.
        for (secret, secretBytes) in secretBytes where Self.contains(bytes, secretBytes) {
            found.append(Finding(file: file, line: number, kind: "a secret a test gave a server", excerpt: String(secret.prefix(4))))
        }
        return found
    }

    /// Whether `needle` occurs in `bytes`, both ending in a 0 byte (C's `strstr`: this runs for
    /// every secret on every line of a whole suite's logs, in a debug build; neither holds a 0
    /// byte before its end, as JSON lines and the secrets do not).
    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { haystack in
            needle.withUnsafeBufferPointer { needle in
                haystack.withMemoryRebound(to: CChar.self) { haystack in
                    needle.withMemoryRebound(to: CChar.self) { strstr(haystack.baseAddress!, $0.baseAddress!) != nil }
                }
            }
        }
    }

    /// The longest run of hexadecimal digits in `bytes`.
    static func longestHexRun(_ bytes: [UInt8]) -> Int {
        var longest = 0
        var run = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
                run += 1
                longest = max(longest, run)
            default:
                run = 0
            }
        }
        return longest
    }

    /// Every line of every `*.jsonl` file in `folder`, with the secrets of its `secrets-*.txt` files
    /// added to ``secrets``.
    public static func scan(folder: URL) throws -> Report {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        var secrets: [String] = []
        for name in names where name.hasPrefix("secrets-") && name.hasSuffix(".txt") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            secrets += text.split(separator: "\n").compactMap(Base64Line.decode)
        }
        let scan = LogScan(secrets: secrets)
        var report = Report()
        for name in names where name.hasSuffix(".jsonl") {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            report.files += 1
            report.bytes += data.count
            let text = String(decoding: data, as: UTF8.self)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
                report.lines += 1
                report.findings += scan.findings(in: line, file: name, number: index + 1)
            }
        }
        return report
    }
}
