import Foundation

/// A card as the phone shows it (`docs/devices.md`, "Rendering"), as text: the lock screen and the
/// Dynamic Island, compact and expanded.
public struct RenderedCard: Sendable, Hashable, CustomStringConvertible {
    public var lockScreen: String
    public var compactLeading: String
    public var compactTrailing: String
    public var expanded: String

    public init(lockScreen: String, compactLeading: String, compactTrailing: String, expanded: String) {
        self.lockScreen = lockScreen
        self.compactLeading = compactLeading
        self.compactTrailing = compactTrailing
        self.expanded = expanded
    }

    public var description: String {
        "[lock screen]\n\(lockScreen)\n[island] \(compactLeading) · \(compactTrailing)\n[expanded]\n\(expanded)"
    }
}
