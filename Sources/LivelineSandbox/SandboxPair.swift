/// A development and a production sandbox sharing one folder: one TLS certificate (one CA file)
/// and one provider key serve both, as a server with a key pushes each token through its own
/// environment with that one key (docs/configuration.md, `LIVELINE_APNS_PRODUCTION_HOST`).
///
/// Related APNs documentation: "Sending notification requests to APNs" (`docs/apns.md` §1.1):
/// development pushes go to `api.sandbox.push.apple.com`, production ones to `api.push.apple.com`.
public struct SandboxPair: Sendable {
    public let development: APNSSandbox
    public let production: APNSSandbox

    init(development: APNSSandbox, production: APNSSandbox) {
        self.development = development
        self.production = production
    }

    /// The sandbox that plays `environment`.
    public subscript(environment: SandboxEnvironment) -> APNSSandbox {
        environment == .production ? production : development
    }

    /// Both, development first.
    public var sandboxes: [APNSSandbox] { [development, production] }

    /// Stops both (GOAWAY on every connection). Safe to call twice.
    public func stop() {
        production.stop()
        development.stop()
    }
}
