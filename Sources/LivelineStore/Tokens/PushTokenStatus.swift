/// Where a stored push token is in its life (`docs/engine.md`, "Push tokens").
public enum PushTokenStatus: String, Sendable, Hashable, CaseIterable {
    /// The token pushes go to; at most one per household, environment, kind and slot.
    case active
    /// A newer token took its slot, or the same token was registered in another slot.
    case replaced
    /// The app removed it (`DELETE /api/apns/register`).
    case deleted
    /// APNs refused it (`410 Unregistered`, `BadDeviceToken`, …); it is never retried.
    case invalid
}
