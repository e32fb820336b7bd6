import Foundation
#if canImport(WidgetKit)
import WidgetKit
#endif

/// The latest snapshot of each context, written where the widget and the Live Activity extension
/// read it (`docs/sdk.md`): an App Group container on iOS, a folder elsewhere. Writes are
/// atomic (a new file renamed over the old), so a reader sees the old snapshot or the new one,
/// never a torn file. After each write `onWrite` runs: the place to ask widgets to reload.
public struct SharedSnapshotStore: Sendable {
    public let folder: URL
    /// Runs after every write with the context key (e.g. ``reloadWidgets``).
    public var onWrite: (@Sendable (String) -> Void)?

    public init(folder: URL, onWrite: (@Sendable (String) -> Void)? = nil) {
        self.folder = folder
        self.onWrite = onWrite
    }

    #if canImport(Darwin) || LIVELINE_APPLE_GLUE
    /// The store in the App Group container `group` (shared by the app and its extensions); nil
    /// on iOS when the app is not entitled to it (macOS returns a folder even then). Related
    /// Apple documentation:
    /// https://developer.apple.com/documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
    public init?(appGroup group: String, onWrite: (@Sendable (String) -> Void)? = nil) {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else { return nil }
        self.init(folder: container.appendingPathComponent("LivelineSnapshots", isDirectory: true), onWrite: onWrite)
    }
    #endif

    #if canImport(WidgetKit)
    /// Asks every widget of the app to reload its timeline (on the main actor). `WidgetCenter`
    /// is iOS 14+, macOS 11+, watchOS 9+, visionOS 26+. Related Apple documentation:
    /// https://developer.apple.com/documentation/widgetkit/widgetcenter/reloadalltimelines()
    @available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
    public static var reloadWidgets: @Sendable (String) -> Void {
        { _ in Task { @MainActor in WidgetCenter.shared.reloadAllTimelines() } }
    }

    /// Asks the widgets of `kind` (their configuration's `kind`) to reload their timelines.
    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/widgetkit/widgetcenter/reloadtimelines(ofkind:)
    @available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
    public static func reloadWidgets(ofKind kind: String) -> @Sendable (String) -> Void {
        { _ in Task { @MainActor in WidgetCenter.shared.reloadTimelines(ofKind: kind) } }
    }
    #endif

    /// Writes the snapshot of its context atomically, replacing the previous one.
    public func write<State: Codable & Sendable>(_ snapshot: Snapshot<State>) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let data = try Self.encoder.encode(snapshot)
        try data.write(to: file(for: snapshot.contextKey), options: .atomic)
        onWrite?(snapshot.contextKey)
    }

    /// The snapshot last written for `contextKey`, or nil when there is none.
    public func read<State: Codable & Sendable>(_ type: State.Type, contextKey: String) throws -> Snapshot<State>? {
        let url = file(for: contextKey)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Self.decoder.decode(Snapshot<State>.self, from: Data(contentsOf: url))
    }

    /// The file of a context: its key with every character but letters, digits, `-` and `_`
    /// written as `%XX`, so any key is one safe file name.
    public func file(for contextKey: String) -> URL {
        var name = ""
        for byte in contextKey.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                name.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                name += String(format: "%%%02X", byte)
            }
        }
        return folder.appendingPathComponent(name + ".json")
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
