import Foundation
import LivelineCLI
import Testing

/// `liveline doctor --info-plist FILE [--entitlements FILE]` with property lists the test writes,
/// XML and binary, for every check.
struct DoctorInfoPlistTests {
    enum Format { case xml, binary }

    /// Writes `values` as a property list and returns its path.
    static func plist(_ values: [String: Any], _ format: Format) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-\(UUID().uuidString).plist")
        let data = try PropertyListSerialization.data(fromPropertyList: values, format: format == .xml ? .xml : .binary, options: 0)
        try data.write(to: url)
        return url.path
    }

    /// A good app's Info.plist.
    static var app: [String: Any] { ["CFBundleIdentifier": "dev.liveline.demo", "NSSupportsLiveActivities": true, "CFBundleName": "Demo"] }

    static func doctor(_ arguments: [String], environment: [String: String] = [:]) -> (code: Int32, text: String) {
        let output = CapturedOutput()
        output.environment = environment
        let code = output.run(["doctor"] + arguments)
        return (code, output.standardOutput + output.standardError)
    }

    @Test(arguments: [Format.xml, Format.binary])
    func aGoodAppPassesEveryCheck(_ format: Format) throws {
        let info = try Self.plist(Self.app, format)
        let entitlements = try Self.plist(["aps-environment": "development"], format)
        let (code, text) = Self.doctor(["--info-plist", info, "--entitlements", entitlements])
        #expect(code == 0, "\(text)")
        #expect(text.contains("✔ NSSupportsLiveActivities is YES") && text.contains("✔ CFBundleIdentifier is dev.liveline.demo"), "\(text)")
        #expect(text.contains("✔ aps-environment is development") && !text.contains("✘"), "\(text)")
    }

    @Test(arguments: [Format.xml, Format.binary])
    func eachProblemIsOneLineSayingWhatToDo(_ format: Format) throws {
        var missing = Self.app
        missing["NSSupportsLiveActivities"] = nil
        var (code, text) = Self.doctor(["--info-plist", try Self.plist(missing, format)])
        #expect(code == 1 && text.contains("✘ NSSupportsLiveActivities is missing: add it to the app's Info.plist with the value YES"), "\(text)")

        var off = Self.app
        off["NSSupportsLiveActivities"] = false
        (code, text) = Self.doctor(["--info-plist", try Self.plist(off, format)])
        #expect(code == 1 && text.contains("✘ NSSupportsLiveActivities is NO"), "\(text)")

        let widget: [String: Any] = [
            "CFBundleIdentifier": "dev.liveline.demo.widget", "NSSupportsLiveActivities": true,
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.widgetkit-extension"],
        ]
        (code, text) = Self.doctor(["--info-plist", try Self.plist(widget, format)])
        #expect(code == 1 && text.contains("is in a widget extension's Info.plist"), "\(text)")

        (code, text) = Self.doctor(["--info-plist", try Self.plist(Self.app, format)], environment: ["LIVELINE_PRIORITY_BUDGET": "30"])
        #expect(code == 1 && text.contains("✘ NSSupportsLiveActivitiesFrequentUpdates is not YES, but the server sends up to 30"), "\(text)")
        var frequent = Self.app
        frequent["NSSupportsLiveActivitiesFrequentUpdates"] = true
        (code, text) = Self.doctor(["--info-plist", try Self.plist(frequent, format)], environment: ["LIVELINE_PRIORITY_BUDGET": "30"])
        #expect(code == 0 && text.contains("✔ NSSupportsLiveActivitiesFrequentUpdates is YES"), "\(text)")

        var other = Self.app
        other["CFBundleIdentifier"] = "com.example.other"
        (code, text) = Self.doctor(["--info-plist", try Self.plist(other, format)])
        #expect(code == 1 && text.contains("✘ CFBundleIdentifier is com.example.other, but the server pushes to dev.liveline.demo"), "\(text)")
        (code, text) = Self.doctor(["--info-plist", try Self.plist(other, format)], environment: ["LIVELINE_APNS_BUNDLE_ID": "com.example.other"])
        #expect(code == 0, "the configured bundle id: \(text)")

        let production = try Self.plist(["aps-environment": "production"], format)
        (code, text) = Self.doctor(["--info-plist", try Self.plist(Self.app, format), "--entitlements", production])
        #expect(code == 1 && text.contains("✘ aps-environment is production, but LIVELINE_APNS_ENVIRONMENT=sandbox expects development"), "\(text)")
        (code, text) = Self.doctor(
            ["--info-plist", try Self.plist(Self.app, format), "--entitlements", production], environment: ["LIVELINE_APNS_ENVIRONMENT": "production"]
        )
        #expect(code == 0, "\(text)")
        (code, text) = Self.doctor(["--info-plist", try Self.plist(Self.app, format), "--entitlements", try Self.plist([:], format)])
        #expect(code == 1 && text.contains("✘ aps-environment is missing"), "\(text)")
    }

    @Test func aFileThatIsNoPropertyListIsSaidSo() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-\(UUID().uuidString).plist")
        try Data("not a plist {".utf8).write(to: url)
        let (code, text) = Self.doctor(["--info-plist", url.path])
        #expect(code == 1 && text.contains("is no property list"), "\(text)")
        #expect(Self.doctor(["--entitlements", url.path]).code == 2, "--entitlements without --info-plist is a usage error")
    }
}
