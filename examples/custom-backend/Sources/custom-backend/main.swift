import Dispatch
import Foundation
import Liveline
import LivelineServer
import Parcels

#if canImport(Glibc)
import Glibc
#endif

// Liveline with the built-in features and this backend's parcels, configured as `liveline serve`
// is (the `LIVELINE_*` variables; docs/configuration.md).
do {
    let configuration = try ServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
    let server = try Assembly.server(configuration, features: Assembly.features + [ParcelsFeature()])
    try server.app.start()
    print("custom-backend: listening on \(server.app.baseURL) (\(server.app.features.joined(separator: ", ")))")
    if server.app.adminKeyGenerated { print("admin key: \(server.app.adminKey)") }
    let stopSignals = [SIGINT, SIGTERM, SIGHUP]
    for name in stopSignals { signal(name, SIG_IGN) }
    let sources = stopSignals.map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
    for source in sources {
        source.setEventHandler { exit(server.app.shutdown() ? 0 : 1) }
        source.resume()
    }
    withExtendedLifetime(sources) { dispatchMain() }
} catch {
    FileHandle.standardError.write(Data("custom-backend: \(error)\n".utf8))
    exit(1)
}
