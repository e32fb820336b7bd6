/// What the network between the sandbox and the simulated devices does wrong, reproducibly from
/// `seed` (`docs/devices.md`, "Faults it can inject"): lose a share of the pushes, deliver them out of
/// order (in shuffled groups of `reorderWindow`), late (`delay`). Offline periods, rotated tokens,
/// a refused "Allow" and exhausted budgets are set per device (``DeviceFleet``, ``DeviceRules``,
/// ``DeviceConfiguration``).
public struct DeviceFaults: Sendable, Hashable {
    public var seed: UInt64
    /// The share of pushes that never reach the device (0…1).
    public var dropShare: Double
    /// Pushes are held until this many wait, then delivered shuffled (0 or 1: in order).
    public var reorderWindow: Int
    /// Every delivery waits this long.
    public var delay: Duration?

    public init(seed: UInt64 = 1, dropShare: Double = 0, reorderWindow: Int = 0, delay: Duration? = nil) {
        self.seed = seed
        self.dropShare = dropShare
        self.reorderWindow = reorderWindow
        self.delay = delay
    }

    public static let none = DeviceFaults()
}
