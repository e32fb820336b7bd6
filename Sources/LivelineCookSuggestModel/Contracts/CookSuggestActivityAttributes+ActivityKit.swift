#if canImport(ActivityKit) && (os(iOS) || LIVELINE_APPLE_GLUE)
import ActivityKit
import LivelineModel

// The contract is an ActivityKit type on iOS: the app and its widget use it directly, and its
// nested `ContentState` is the `ActivityAttributes.ContentState` the phone decodes pushes into.
// Related documentation: "ActivityAttributes" (ActivityKit: iOS 16.1+, Mac Catalyst 16.1+; the
// `os(iOS)` condition keeps a macOS SDK that ships the module but not the protocol out), `docs/sdk.md`.
// `LIVELINE_APPLE_GLUE` is defined by no Apple build, only by `Tests/AppleGlue`, which type-checks
// this file on Linux against stubs of ActivityKit (`docs/sdk.md`, "The iOS glue, type-checked on Linux").
// https://developer.apple.com/documentation/activitykit/activityattributes

@available(iOS 16.1, macCatalyst 16.1, *)
extension CookSuggestActivityAttributes: ActivityAttributes {}
#endif
