import Foundation
import Liveline
import LivelineCLI

#if canImport(Glibc)
import Glibc
#endif

// `liveline` with one more feature whose schema has a second, expanding version: the build a
// rolling-upgrade test upgrades to and back from (docs/operations.md, "Upgrading"). Not part of
// the product. `PROBE_SCHEMA_VERSION` (1 or 2) picks the build.
let version = Int(ProcessInfo.processInfo.environment["PROBE_SCHEMA_VERSION"] ?? "1") ?? 1
let context = CLIContext.process(features: Assembly.features + [ProbeFeature(version: version)])
exit(LivelineCommandLine().run(Array(CommandLine.arguments.dropFirst()), context: context))
