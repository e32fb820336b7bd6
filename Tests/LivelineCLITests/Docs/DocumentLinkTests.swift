import Foundation
import Testing

/// The repository's Markdown: every relative link resolves (the file, and a `#fragment` to one of
/// its headings as GitHub makes their anchors), and the README repeats no paragraph of `docs/`.
@Suite struct DocumentLinkTests {
    static let root = SettingsCommandTests.root

    /// A link found in a document: where it is and what it points at.
    struct Link: CustomStringConvertible {
        var file: String
        var line: Int
        var target: String
        var description: String { "\(file):\(line): \(target)" }
    }

    /// The Markdown files a reader follows links through: the README, CONTRIBUTING.md, `docs/`
    /// and the examples' READMEs.
    static func documents() throws -> [String] {
        var found = ["README.md", "CONTRIBUTING.md"]
        for folder in ["docs", "examples"] {
            let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let path = walker?.nextObject() as? String {
                if path.hasSuffix(".md") && (folder == "docs" || path.hasSuffix("README.md")) { found.append("\(folder)/\(path)") }
            }
        }
        return found.sorted()
    }

    /// The lines of `text` outside fenced code blocks, numbered from 1, inline code removed.
    static func prose(_ text: String) -> [(number: Int, text: String)] {
        var fenced = false
        var lines: [(Int, String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
                continue
            }
            if !fenced { lines.append((index + 1, String(line).replacing(/`[^`]*`/, with: ""))) }
        }
        return lines
    }

    /// Every inline link and image of `text` (`[text](target)`), outside code.
    static func links(in text: String, file: String) -> [Link] {
        prose(text).flatMap { line in
            line.text.matches(of: /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/).map { Link(file: file, line: line.number, target: String($0.1)) }
        }
    }

    /// GitHub's anchor of each heading of `text`: lower case, punctuation dropped, spaces as `-`,
    /// a repeated anchor numbered `-1`, `-2`, ….
    static func anchors(of text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        var fenced = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") { fenced.toggle() }
            guard !fenced, let heading = line.firstMatch(of: /^#{1,6}\s+(.*?)\s*#*\s*$/)?.1 else { continue }
            let slug = String(
                heading.lowercased().unicodeScalars.filter {
                    CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
                }.map(Character.init)
            ).replacingOccurrences(of: " ", with: "-")
            let count = seen[slug, default: 0]
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
            seen[slug] = count + 1
        }
        return anchors
    }

    /// Why `link` does not resolve, or nil when it does (links with a scheme are not followed).
    static func problem(_ link: Link) -> String? {
        if link.target.contains(":") && link.target.firstMatch(of: /^[a-zA-Z][a-zA-Z0-9+.-]*:/) != nil { return nil }
        let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        let base = root.appendingPathComponent(link.file).deletingLastPathComponent()
        let target = path.isEmpty ? root.appendingPathComponent(link.file) : base.appendingPathComponent(path).standardizedFileURL
        guard FileManager.default.fileExists(atPath: target.path) else { return "no file \(target.path)" }
        guard parts.count == 2 else { return nil }
        guard target.pathExtension == "md", let text = try? String(contentsOf: target, encoding: .utf8) else {
            return "a fragment into \(target.lastPathComponent), which is no Markdown file"
        }
        let fragment = String(parts[1]).removingPercentEncoding ?? String(parts[1])
        return anchors(of: text).contains(fragment) ? nil : "\(target.lastPathComponent) has no heading whose anchor is #\(fragment)"
    }

    @Test func everyRelativeLinkResolves() throws {
        let documents = try Self.documents()
        #expect(documents.contains("docs/operations.md") && documents.count > 15, "\(documents)")
        var checked = 0
        for document in documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for link in Self.links(in: text, file: document) {
                checked += 1
                if let problem = Self.problem(link) { Issue.record("\(link): \(problem)") }
            }
        }
        #expect(checked > 100, "only \(checked) links found: the search is broken")
    }

    @Test func theCheckFindsWhatDoesNotResolve() {
        let text = """
            # Quick start
            ## Push tokens — `/api/apns/register`
            ## Quick start
            See [a](docs/api.md#the-document), [b](docs/no-such-page.html), [c](docs/api.md#no-such-heading), [d](#quick-start-1).
            ```
            [in code](docs/no-such-page-either.html)
            ```
            [e](https://example.com/x) and `[inline](docs/no-such-page.html)`
            """
        #expect(Self.anchors(of: text) == ["quick-start", "push-tokens--apiapnsregister", "quick-start-1"])
        let links = Self.links(in: text, file: "README.md")
        #expect(
            links.map(\.target) == [
                "docs/api.md#the-document", "docs/no-such-page.html", "docs/api.md#no-such-heading", "#quick-start-1", "https://example.com/x",
            ])
        #expect(links.map { Self.problem($0) == nil } == [true, false, false, false, true])
    }

    /// A paragraph of the README that is also in `docs/` is a section kept twice: it drifts.
    @Test func theReadmeRepeatsNoParagraphOfTheDocs() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        var docs = ""
        for document in try Self.documents() where document.hasPrefix("docs/") {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            docs += Self.prose(text).map(\.text).joined(separator: "\n")
        }
        let long = Self.prose(readme).map { $0.text.trimmingCharacters(in: .whitespaces) }.filter { $0.count >= 60 && !$0.hasPrefix("|") }
        #expect(long.count > 10, "the README's prose was not found")
        for line in long where docs.contains(line) { Issue.record("README line also in docs/: \(line)") }
    }
}
