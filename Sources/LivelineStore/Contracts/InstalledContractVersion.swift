/// How many devices have an app built with one version of a contract.
public struct InstalledContractVersion: Sendable, Hashable {
    /// The fingerprint the apps registered with; nil: apps that did not say (an older SDK).
    public var fingerprint: String?
    /// Distinct devices with an active push-to-start or update token of the type.
    public var devices: Int

    public init(fingerprint: String?, devices: Int) {
        self.fingerprint = fingerprint
        self.devices = devices
    }
}
