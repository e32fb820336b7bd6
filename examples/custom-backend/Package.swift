// swift-tools-version:6.0
import PackageDescription

// A backend built on Liveline: the built-in features plus one of its own (parcels: one route,
// one table, one Live Activity contract). `Liveline` is a symbolic link to the repository's root,
// so the dependency's identity is `liveline` wherever the repository is cloned.
let package = Package(
    name: "CustomBackend",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "Liveline")],
    targets: [
        .target(name: "Parcels", dependencies: [.product(name: "Liveline", package: "liveline")]),
        .executableTarget(name: "custom-backend", dependencies: ["Parcels", .product(name: "Liveline", package: "liveline")]),
        .testTarget(
            name: "ParcelsTests",
            dependencies: ["Parcels", .product(name: "Liveline", package: "liveline"), .product(name: "LivelineTesting", package: "liveline")]
        ),
    ]
)
