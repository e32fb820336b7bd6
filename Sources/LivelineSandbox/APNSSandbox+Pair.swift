extension APNSSandbox {
    /// Starts a development sandbox with `configuration` (its environment is ignored), then a
    /// production one with the same folder, key, team, bundle and rules on its own ports. The
    /// production one reuses the certificate and `.p8` key the first made (or found), so one CA
    /// file and one provider key serve both. If the production one cannot start, the development
    /// one is stopped and the error thrown.
    ///
    /// `productionControlPort` nil: a control port on a free port when `configuration` has one,
    /// else none. Each sandbox runs its own Web Push service (`webPush`; web push has no
    /// environments): the development one on `configuration.webPushPort`, the production one on
    /// `productionWebPushPort`.
    public static func startBoth(
        _ configuration: SandboxConfiguration, productionDevicePort: Int = 0, productionManagementPort: Int = 0, productionControlPort: Int? = nil,
        productionWebPushPort: Int = 0
    ) throws -> SandboxPair {
        var development = configuration
        development.environment = .development
        var production = configuration
        production.environment = .production
        production.devicePort = productionDevicePort
        production.managementPort = productionManagementPort
        production.controlPort = productionControlPort ?? configuration.controlPort.map { _ in 0 }
        production.webPushPort = productionWebPushPort
        let first = try start(development)
        do {
            return SandboxPair(development: first, production: try start(production))
        } catch {
            first.stop()
            throw error
        }
    }
}
