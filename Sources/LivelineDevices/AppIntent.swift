import LivelineClient

/// What the app does when its user presses a button on its Live Activity: an App Intent's call
/// through the API (iOS 17+, `Button(intent:)`; Related Apple documentation:
/// https://developer.apple.com/documentation/widgetkit/adding-interactivity-to-widgets-and-live-activities).
///
/// The feature that draws the card gives it, in a ``CardButton``; the simulated app runs it as the
/// device's user, logs the answer and then pulls the card (docs/devices.md, "Buttons on the card").
public struct AppIntent: Sendable, CustomStringConvertible {
    /// What it did, for the device's log: `checked off item 3`.
    public var name: String
    /// The call through the API as the user of `device`; returns what the log says of the answer
    /// (`rev 12`).
    public var perform: @Sendable (_ client: LivelineClient, _ device: DeviceConfiguration) async throws -> String

    public init(name: String, perform: @escaping @Sendable (_ client: LivelineClient, _ device: DeviceConfiguration) async throws -> String) {
        self.name = name
        self.perform = perform
    }

    public var description: String { name }
}
