// swift-tools-version:6.0
import PackageDescription

// Built by CI only (`scripts/test.sh`): the product's iOS glue — the code behind
// `#if canImport(ActivityKit)` / `canImport(WidgetKit)` in LivelineModel, the built-in features'
// models and LivelineClient — and the app example in `examples/ios`, type-checked on Linux against
// declaration stubs of exactly the Apple API they use (docs/sdk.md, "Using it from an app").
// `Sources/LivelineModel`, `Sources/Liveline{Shopping,CookSuggest,Transit}Model`,
// `Sources/LivelineClient` and `Sources/LivelineExamples` are symbolic links to the real folders,
// not copies; `ParcelsApp` is an app that links only the generic model and the SDK. The stub
// modules are named like Apple's so `canImport` succeeds; their bodies are
// `fatalError()` and they never reach an app: nothing outside this package depends on them.
// `LIVELINE_APPLE_GLUE` lets the guarded code in (its guards also ask for `os(iOS)`, false here).
// For Linux: on a Mac the stubs would clash with the SDK's own modules; there Xcode checks the real
// thing. What this catches and what it cannot: docs/sdk.md, "The iOS glue, type-checked on Linux".

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .define("LIVELINE_APPLE_GLUE"),
]

let package = Package(
    name: "LivelineAppleGlue",
    targets: [
        // MARK: Stubs of Apple's API (declarations only).
        .target(name: "ActivityKit", swiftSettings: swiftSettings),
        .target(name: "WidgetKit", swiftSettings: swiftSettings),
        // `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`, Foundation on Apple
        // platforms, absent from Linux's: imported into every file of LivelineClient, as the
        // Darwin Foundation would bring it.
        .target(name: "AppGroupContainer", swiftSettings: swiftSettings),

        // MARK: The real sources (symbolic links).
        .target(name: "LivelineModel", dependencies: ["ActivityKit"], swiftSettings: swiftSettings),
        .target(
            name: "LivelineClient", dependencies: ["LivelineModel", "ActivityKit", "WidgetKit", "AppGroupContainer"],
            swiftSettings: swiftSettings + [.unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "AppGroupContainer"])]
        ),
        .target(name: "LivelineShoppingModel", dependencies: ["LivelineModel", "ActivityKit"], swiftSettings: swiftSettings),
        .target(name: "LivelineCookSuggestModel", dependencies: ["LivelineModel", "ActivityKit"], swiftSettings: swiftSettings),
        .target(name: "LivelineTransitModel", dependencies: ["LivelineModel", "ActivityKit"], swiftSettings: swiftSettings),
        .target(
            name: "LivelineExamples",
            dependencies: [
                "LivelineModel", "LivelineClient", "LivelineShoppingModel", "LivelineCookSuggestModel", "LivelineTransitModel", "ActivityKit",
                "WidgetKit",
            ],
            swiftSettings: swiftSettings
        ),
        // An app of its own contract (examples/custom-backend's parcel, a link to the same file)
        // that links the generic model and the SDK only: it builds without any built-in type.
        .target(name: "ParcelsApp", dependencies: ["LivelineModel", "LivelineClient", "ActivityKit"], swiftSettings: swiftSettings),
        // examples/custom-activity: the delivery app's shared type, which knows nothing of
        // Liveline, and the app that registers its tokens with that type's fingerprint.
        .target(name: "DeliveryShared", dependencies: ["ActivityKit"], swiftSettings: swiftSettings),
        .target(
            name: "DeliveryApp", dependencies: ["DeliveryShared", "LivelineModel", "LivelineClient", "ActivityKit"], swiftSettings: swiftSettings),
    ]
)
