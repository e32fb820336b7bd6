/// A button on a Live Activity card (the lock screen, the Dynamic Island expanded): what the card
/// as shown offers to press, and the App Intent behind it.
///
/// The feature that draws the card gives it, so the simulated iPhones name no card type of their
/// own; ``DeviceFleet/press(_:device:contextKey:)`` presses it (docs/devices.md, "Buttons on the
/// card").
public struct CardButton: Sendable {
    /// A press of the button on one shown card: what the user did, for the log, and the intent the
    /// app runs.
    public struct Press: Sendable {
        public var pressed: String
        public var intent: AppIntent

        public init(pressed: String, intent: AppIntent) {
            self.pressed = pressed
            self.intent = intent
        }
    }

    /// What pressing it does, for the log when a card shows no such button: `check off`.
    public var name: String
    /// Reads the card as shown: the press, or nil when the card shows no such button (another
    /// type, nothing left to press).
    public var press: @Sendable (SimulatedActivity) -> Press?

    public init(name: String, press: @escaping @Sendable (SimulatedActivity) -> Press?) {
        self.name = name
        self.press = press
    }
}
