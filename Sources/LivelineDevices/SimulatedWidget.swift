import Foundation

/// One widget on a simulated iPhone, as WidgetKit keeps it (`docs/devices.md`, "Widgets"): what
/// it shows and the push-driven reloads its budget counts.
public struct SimulatedWidget: Sendable, Hashable {
    public var kind: String
    public var contextKeys: [String]
    /// The revision of each context the widget shows (none yet: not there).
    public var shown: [String: Int] = [:]
    /// When pushes reloaded its timeline, oldest first, within ``DeviceRules/widgetReloadWindow``.
    public var reloads: [Date] = []

    public init(_ widget: DeviceWidget) {
        kind = widget.kind
        contextKeys = widget.contextKeys
    }
}
