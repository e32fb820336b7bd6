// swift-tools-version:6.0
import PackageDescription

/// One setting list for every Swift target: Swift 6 language mode (strict concurrency) comes from
/// the tools version; these add the checks we want everywhere.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "Liveline",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        // Shared with the iOS app and its widget: Foundation only.
        .library(name: "LivelineModel", targets: ["LivelineModel"]),
        // Each built-in feature's contract, API bodies, routes and SDK calls: an app links those it uses.
        .library(name: "LivelineShoppingModel", targets: ["LivelineShoppingModel"]),
        .library(name: "LivelineCookSuggestModel", targets: ["LivelineCookSuggestModel"]),
        .library(name: "LivelineTransitModel", targets: ["LivelineTransitModel"]),
        // What an iOS app links to talk to Liveline: Foundation (+ FoundationNetworking) and the model.
        .library(name: "LivelineClient", targets: ["LivelineClient"]),
        // The composition root and the modules a backend built on it adds a feature with.
        .library(
            name: "Liveline",
            targets: [
                "Liveline", "LivelineServer", "LivelineAPI", "LivelineEngine", "LivelineStore", "LivelineHTTP", "LivelineLog", "LivelineModel",
                "LivelinePushWire", "LivelinePush", "LivelineSandbox", "LivelineDashboard", "LivelineShoppingModel", "LivelineCookSuggestModel",
                "LivelineTransitModel",
            ]),
        .library(name: "LivelineTesting", targets: ["LivelineTesting", "LivelineTestSupport", "LivelineContractChecks"]),
        .executable(name: "liveline", targets: ["liveline"]),
    ],
    targets: [
        // MARK: C libraries from Debian packages, one small module each.
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd")]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CCSV", providers: [.apt(["libcsv-dev"])]),
        // GTFS-Realtime's messages in C, made by protoc-c from proto/ (scripts/generate-gtfs-realtime.sh).
        .target(name: "CGTFSRealtime", exclude: ["proto"], linkerSettings: [.linkedLibrary("protobuf-c")]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // MARK: The shared model (Foundation only; compiles for iOS 17+/macOS 14+).
        .target(name: "LivelineModel", swiftSettings: swiftSettings),
        // The built-in features' models: contract, card, materiality, API bodies, routes, SDK calls
        // (an extension of the model's `APICaller`). Foundation and LivelineModel only.
        .target(name: "LivelineShoppingModel", dependencies: ["LivelineModel"], swiftSettings: swiftSettings),
        .target(name: "LivelineCookSuggestModel", dependencies: ["LivelineModel"], swiftSettings: swiftSettings),
        .target(name: "LivelineTransitModel", dependencies: ["LivelineModel"], swiftSettings: swiftSettings),

        // MARK: Server side.
        .target(name: "LivelineCrypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        // JSON-lines logs (the access log and the engine's events), flushed on a timer.
        .target(name: "LivelineLog", dependencies: ["LivelineScheduling"], swiftSettings: swiftSettings),
        .target(name: "LivelineScheduling", swiftSettings: swiftSettings),
        .target(
            name: "LivelineHTTP", dependencies: ["CMicroHTTPD", "LivelineModel", "LivelineLog", "LivelineScheduling"], swiftSettings: swiftSettings),
        .target(name: "LivelineHTTP2", dependencies: ["CNGHTTP2", "COpenSSL", "CLinux"], swiftSettings: swiftSettings),
        .target(name: "LivelinePushWire", dependencies: ["LivelineCrypto", "LivelineModel"], swiftSettings: swiftSettings),
        .target(
            name: "LivelinePush", dependencies: ["LivelineHTTP2", "LivelineCrypto", "LivelineModel", "LivelinePushWire", "LivelineScheduling"],
            swiftSettings: swiftSettings),
        .target(
            name: "LivelineWebPush", dependencies: ["CCurl", "LivelineCrypto", "LivelineModel", "LivelinePushWire"], swiftSettings: swiftSettings),
        .target(
            name: "LivelineSandbox",
            dependencies: [
                "LivelineHTTP2", "LivelineHTTP", "LivelineLog", "LivelineCrypto", "LivelineModel", "LivelinePush", "LivelinePushWire",
                "LivelineScheduling",
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "LivelineClient", dependencies: ["LivelineModel"], swiftSettings: swiftSettings),
        // What handlers of the core and of features share: auth, the error mapping, request helpers, the feature seam.
        .target(
            name: "LivelineAPI", dependencies: ["LivelineModel", "LivelineHTTP", "LivelineLog", "LivelineEngine", "LivelineStore", "LivelineCrypto"],
            swiftSettings: swiftSettings
        ),
        // MARK: Features, each behind the seam of LivelineAPI.
        .target(
            name: "LivelineShopping",
            dependencies: [
                "LivelineShoppingModel", "LivelineModel", "LivelineStore", "LivelineEngine", "LivelineHTTP", "LivelineLog", "LivelineAPI",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LivelineCookSuggest",
            dependencies: [
                "LivelineCookSuggestModel", "LivelineModel", "LivelineStore", "LivelineEngine", "LivelineHTTP", "LivelineLog", "LivelineAPI",
                "LivelineShopping",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LivelineTransit",
            dependencies: [
                "LivelineTransitModel",
                "CZip", "CCSV", "CGTFSRealtime", "LivelineModel", "LivelineStore", "LivelineEngine", "LivelineHTTP", "LivelineLog",
                "LivelineAPI",
            ],
            // The demo feed's files are in the binary (Demo/DemoFeed+Data.swift, from scripts/embed-demo-feed.py).
            exclude: ["Demo/feed", "Demo/rt", "Demo/README.md"],
            swiftSettings: swiftSettings
        ),
        // The cards as the phone draws them, in text: for the simulated iPhones' logs and the dashboard.
        .target(name: "LivelineCards", dependencies: ["LivelineModel"], swiftSettings: swiftSettings),
        .target(
            name: "LivelineDevices", dependencies: ["LivelineModel", "LivelineCards", "LivelineClient", "LivelineSandbox", "LivelineScheduling"],
            swiftSettings: swiftSettings
        ),
        // The web dashboard at /dashboard: sign-in, pages, live updates (Server-Sent Events).
        .target(
            name: "LivelineDashboard",
            dependencies: [
                "LivelineModel", "LivelineCards", "LivelineAPI", "LivelineEngine", "LivelineStore", "LivelineHTTP", "LivelineCrypto", "LivelineLog",
                "LivelineScheduling",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LivelineEngine",
            dependencies: ["LivelineStore", "LivelinePushWire", "LivelineModel", "LivelineLog", "LivelineScheduling"],
            swiftSettings: swiftSettings),
        .target(name: "LivelineStore", dependencies: ["CSQLite", "CLibPQ", "LivelineModel"], swiftSettings: swiftSettings),
        .target(
            name: "LivelineServer",
            dependencies: [
                "LivelineModel", "LivelineCrypto", "LivelineHTTP", "LivelineLog", "LivelineStore", "LivelinePush", "LivelinePushWire",

                "LivelineEngine", "LivelineAPI",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Liveline",
            dependencies: [
                "LivelineServer", "LivelineAPI", "LivelineDashboard", "LivelineEngine", "LivelineHTTP", "LivelineLog", "LivelineModel",
                "LivelinePush", "LivelinePushWire", "LivelineSandbox", "LivelineStore", "LivelineWebPush", "LivelineCrypto", "LivelineShopping",
                "LivelineCookSuggest", "LivelineTransit",
            ],
            swiftSettings: swiftSettings
        ),
        // The command line: commands that serve the features they are given and name none.
        .target(
            name: "LivelineCLI",
            dependencies: [
                "Liveline", "LivelineServer", "LivelineModel", "LivelineStore", "LivelineCrypto", "LivelinePush", "LivelinePushWire",
                "LivelineSandbox", "LivelineDevices", "LivelineClient", "LivelineAPI", "LivelineScheduling",
            ],
            swiftSettings: swiftSettings
        ),
        // The built-in apps' screens on simulated iPhones, for the demo and the end-to-end tests.
        .target(
            name: "LivelineApps",
            dependencies: ["LivelineCookSuggestModel", "LivelineShoppingModel", "LivelineDevices", "LivelineClient", "LivelineModel"],
            swiftSettings: swiftSettings),
        // The built-in features on the command line: `liveline demo`, `liveline transit` (docs/architecture.md).
        .target(
            name: "LivelineDemo",
            dependencies: [
                "LivelineCookSuggestModel", "LivelineShoppingModel", "LivelineTransitModel",
                "LivelineCLI", "Liveline", "LivelineServer", "LivelineModel", "LivelineStore", "LivelineCrypto", "LivelineSandbox",
                "LivelineDevices", "LivelineCards", "LivelineClient", "LivelineScheduling", "LivelineShopping", "LivelineTransit",
                "LivelineApps",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "liveline", dependencies: ["LivelineCLI", "LivelineDemo"], swiftSettings: swiftSettings),
        // The test harness: a real server on port 0 with its sandbox, for this package's tests and
        // for a backend built on Liveline.
        .target(
            name: "LivelineTesting",
            dependencies: [
                "Liveline", "LivelineAPI", "LivelineCrypto", "LivelineSandbox", "LivelineServer", "LivelineStore", "LivelineTestSupport",
                "LivelinePushWire", "LivelineModel", "LivelineHTTP",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Benchmarks (not part of the product).
        .target(
            name: "LivelineBench",
            dependencies: [
                "LivelineTransitModel",
                "LivelinePush", "LivelinePushWire", "LivelineSandbox", "LivelineCrypto", "LivelineServer", "LivelineStore", "LivelineModel",
                "LivelineTestSupport",
                "Liveline", "LivelineEngine", "LivelineWebPush", "LivelineTransit", "LivelineLog", "CSQLite",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "liveline-bench", dependencies: ["LivelineBench"], swiftSettings: swiftSettings),
        // `liveline` with one more feature of two schema versions, for the rolling-upgrade test.
        .executableTarget(
            name: "liveline-probe",
            dependencies: ["Liveline", "LivelineCLI", "LivelineAPI", "LivelineEngine", "LivelineHTTP", "LivelineModel", "LivelineStore"],
            swiftSettings: swiftSettings),

        // MARK: Tests mirror the sources.
        // The rules every contract keeps, for a contract's own tests: the model only.
        .target(name: "LivelineContractChecks", dependencies: ["LivelineModel"], swiftSettings: swiftSettings),
        .target(
            name: "LivelineTestSupport",
            dependencies: ["CLinux", "LivelineEngine", "LivelineLog", "LivelinePush", "LivelinePushWire", "LivelineStore", "LivelineModel"],
            path: "Sources/LivelineTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "LivelineTestSupportTests", dependencies: ["LivelineTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LivelineShoppingModelTests", dependencies: ["LivelineShoppingModel", "LivelineModel", "LivelineContractChecks"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LivelineCookSuggestModelTests", dependencies: ["LivelineCookSuggestModel", "LivelineModel", "LivelineContractChecks"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LivelineTransitModelTests", dependencies: ["LivelineTransitModel", "LivelineModel", "LivelineContractChecks"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LivelineModelTests", dependencies: ["LivelineCookSuggestModel", "LivelineShoppingModel", "LivelineTransitModel", "LivelineModel"],
            swiftSettings: swiftSettings),
        .testTarget(name: "LivelineCryptoTests", dependencies: ["LivelineCrypto", "COpenSSL", "LivelineTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LivelineLogTests", dependencies: ["LivelineLog"], swiftSettings: swiftSettings),
        .testTarget(name: "LivelineSchedulingTests", dependencies: ["LivelineScheduling"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LivelineWebPushTests",
            dependencies: [
                "LivelineWebPush", "LivelinePushWire", "LivelineHTTP", "LivelineModel", "LivelineCrypto", "LivelineSandbox", "LivelineTestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "LivelineHTTPTests", dependencies: ["LivelineHTTP", "LivelineLog", "LivelineTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LivelineHTTP2Tests", dependencies: ["LivelineHTTP2", "LivelineCrypto", "LivelineTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LivelinePushTests",
            dependencies: ["LivelinePush", "LivelinePushWire", "LivelineSandbox", "LivelineHTTP2", "LivelineCrypto", "LivelineModel"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineSandboxTests",
            dependencies: ["LivelineSandbox", "LivelineHTTP2", "LivelineCrypto", "LivelineModel", "LivelineTestSupport"],
            exclude: ["Peers/aioapns_peer.py", "Peers/webpush_peer.py"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineEngineTests",
            dependencies: [
                "LivelineCookSuggestModel", "LivelineShoppingModel", "LivelineTransitModel",
                "LivelineEngine", "LivelineStore", "LivelinePush", "LivelinePushWire", "LivelineSandbox", "LivelineModel", "LivelineLog",
                "LivelineTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "LivelineStoreTests", dependencies: ["LivelineStore", "LivelineTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LivelineServerTests",
            dependencies: [
                "LivelineCookSuggestModel", "LivelineShoppingModel", "LivelineTransitModel",
                "LivelineServer", "LivelineStore", "LivelineModel", "LivelineCrypto", "LivelineTestSupport", "LivelinePush", "LivelinePushWire",
                "LivelineSandbox",
                "Liveline", "LivelineAPI", "LivelineEngine", "LivelineHTTP", "LivelineTransit", "LivelineWebPush",
                "LivelineTesting",
            ],
            exclude: [
                "Peers/prometheus_peer.py", "Peers/webpush_check.py", "OpenAPI/schemathesis_hooks.py", "OpenAPI/schemathesis.toml",
                "OpenAPI/schemathesis-without-hooks.toml",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineClientTests",
            dependencies: [
                "LivelineCookSuggestModel", "LivelineTransitModel",
                "LivelineClient", "LivelineServer", "LivelineStore", "LivelineModel", "LivelineCrypto", "LivelineTestSupport", "LivelineSandbox",
                "Liveline", "LivelineTesting",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineDevicesTests",
            dependencies: [
                "LivelineCookSuggestModel", "LivelineShoppingModel", "LivelineTransitModel",
                "LivelineDevices", "LivelineCards", "LivelineServer", "LivelineClient", "LivelineSandbox", "LivelineModel", "LivelineCrypto",
                "LivelineTestSupport", "LivelinePush", "LivelinePushWire", "LivelineStore", "Liveline", "LivelineTransit", "LivelineTesting",
                "LivelineApps",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineShoppingTests",
            dependencies: [
                "LivelineShoppingModel",
                "LivelineShopping", "LivelineStore", "LivelineModel", "LivelineEngine", "LivelineAPI", "LivelineTestSupport", "LivelineTesting",
                "LivelineSandbox", "LivelineServer", "LivelineCrypto", "LivelinePush", "LivelinePushWire",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineCookSuggestTests",
            dependencies: [
                "LivelineCookSuggestModel",
                "LivelineCookSuggest", "LivelineShopping", "LivelineStore", "LivelineModel", "LivelineEngine", "LivelineAPI", "LivelineTestSupport",
                "LivelineLog", "LivelineTesting", "LivelineSandbox", "LivelineServer", "LivelineCrypto", "LivelinePush", "LivelinePushWire",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineTransitTests",
            dependencies: [
                "LivelineTransitModel",
                "LivelineTransit", "LivelineStore", "LivelineModel", "LivelineEngine", "LivelineTestSupport", "CGTFSRealtime", "LivelineTesting",
                "LivelineSandbox", "LivelineServer", "LivelineCrypto", "LivelinePush", "LivelinePushWire",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineDashboardTests",
            dependencies: [
                "LivelineCookSuggestModel", "LivelineShoppingModel", "LivelineTransitModel",
                "LivelineDashboard", "LivelineServer", "Liveline", "LivelineModel", "LivelineStore", "LivelineTestSupport", "LivelineSandbox",
                "LivelineCards", "LivelineTesting",
            ],
            // The browser scripts (Python, with the module they share and what Python caches of it).
            exclude: ["Browser"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LivelineCLITests",
            dependencies: [
                "LivelineCookSuggestModel", "LivelineShoppingModel", "LivelineTransitModel",
                "LivelineCLI", "LivelineTestSupport", "LivelineStore", "LivelineCrypto", "LivelineSandbox", "LivelineDevices", "liveline",
                "LivelineTransit", "Liveline", "LivelineAPI", "LivelineModel", "LivelineDemo", "LivelineApps",
            ], swiftSettings: swiftSettings),
    ]
)
