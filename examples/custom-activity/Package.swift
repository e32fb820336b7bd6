// swift-tools-version:6.0
import PackageDescription

// An app's own Live Activity served by a stock `liveline serve`, not rebuilt: a food-delivery
// tracker. `DeliveryShared` is the package the app and its widget share (its type is the contract);
// `export-contract` turns that type into the contract file the server loads. It needs only the
// generic model (`LivelineModel`). `Liveline` is a symbolic link to the repository's root; a
// package of your own would use `.package(url: "…/liveline.git", from: "…")` instead.
let package = Package(
    name: "CustomActivity",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(path: "Liveline")],
    targets: [
        .target(name: "DeliveryShared", dependencies: [.product(name: "LivelineModel", package: "liveline")]),
        .executableTarget(
            name: "export-contract", dependencies: ["DeliveryShared", .product(name: "LivelineModel", package: "liveline")]),
    ]
)
