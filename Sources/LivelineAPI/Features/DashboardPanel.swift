import Foundation

/// A page a feature adds to the dashboard (``FeatureSetup/dashboardPage(_:)``), e.g. transit's
/// feeds: the feature gives the facts, the dashboard draws them (HTML stays in the dashboard).
public struct DashboardPanel: Sendable {
    /// The page's last path segment: `/dashboard/{slug}` (lowercase letters and `-`).
    public var slug: String
    /// Its title, in the navigation and as the page's heading.
    public var title: String
    /// The page's sections as of now, read at every view.
    public var sections: @Sendable () throws -> [DashboardSection]

    public init(slug: String, title: String, sections: @escaping @Sendable () throws -> [DashboardSection]) {
        precondition(
            !slug.isEmpty && slug.allSatisfy { ("a"..."z").contains($0) || $0 == "-" },
            "a dashboard page's slug is lowercase letters and '-': \(slug)")
        self.slug = slug
        self.title = title
        self.sections = sections
    }
}

/// One section of a ``DashboardPanel``: a heading, facts as name–value pairs, a table, notes.
public struct DashboardSection: Sendable, Hashable {
    public var heading: String
    /// Name–value pairs, in order.
    public var facts: [DashboardFact]
    /// A table: its column names and rows (each as long as `columns`).
    public var columns: [String]
    public var rows: [[String]]
    /// Shown under the table, e.g. "no notices".
    public var note: String?

    public init(heading: String, facts: [DashboardFact] = [], columns: [String] = [], rows: [[String]] = [], note: String? = nil) {
        self.heading = heading
        self.facts = facts
        self.columns = columns
        self.rows = rows
        self.note = note
    }
}

/// A name and its value; `warning` draws it as something to look at.
public struct DashboardFact: Sendable, Hashable {
    public var name: String
    public var value: String
    public var warning: Bool

    public init(_ name: String, _ value: String, warning: Bool = false) {
        self.name = name
        self.value = value
        self.warning = warning
    }
}

extension DashboardFact {
    /// How long ago `seconds` is, for a person: `4 s ago`, `3 min ago`, `2 h ago`, `5 d ago`;
    /// `in 3 min` for the future.
    public static func age(_ seconds: TimeInterval) -> String {
        let magnitude = abs(seconds)
        let text =
            switch magnitude {
            case ..<60: "\(Int(magnitude)) s"
            case ..<3600: "\(Int(magnitude / 60)) min"
            case ..<86400: "\(Int(magnitude / 3600)) h"
            default: "\(Int(magnitude / 86400)) d"
            }
        return seconds >= 0 ? "\(text) ago" : "in \(text)"
    }
}
