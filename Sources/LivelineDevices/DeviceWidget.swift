/// A widget the user placed on a simulated iPhone (`docs/devices.md`, "Widgets"): its kind (the
/// string of its `WidgetConfiguration`, which WidgetKit reports in `WidgetInfo.kind`) and the
/// contexts its timeline provider reads.
public struct DeviceWidget: Sendable, Hashable, Codable {
    public var kind: String
    /// The context keys the widget shows (e.g. `shopping:1:2026-01-05`), read through the SDK on
    /// every reload.
    public var contextKeys: [String]

    public init(kind: String, contextKeys: [String]) {
        self.kind = kind
        self.contextKeys = contextKeys
    }
}
