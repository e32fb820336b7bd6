import Foundation

// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

extension FileManager {
    /// The container folder of the App Group `groupIdentifier`, nil on iOS when the group is not
    /// in the app's entitlements (iOS 7.0+, macOS 10.8+, watchOS 2.0+, tvOS 9.0+, visionOS 1.0+).
    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        fatalError("stub: type-checking only")
    }
}
