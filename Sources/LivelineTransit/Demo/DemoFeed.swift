import Foundation

/// The demo feed that ships with the server (`Demo/README.md`): a made-up but real-looking slice
/// of rnv's tram line 5 from Mannheim to Heidelberg, and a recorded-style GTFS-Realtime sequence
/// of one of its trips. Loaded when no feed is configured, so a trip can be followed without any
/// outside data.
public enum DemoFeed {
    /// The trip the real-time sequence follows, its service day, and the ride it shows.
    public static let tripID = "5-wd-hd-0802"
    public static let serviceDay = ServiceDay(year: 2026, month: 6, day: 18)
    public static let fromStopID = "mannheim-hauptbahnhof"
    public static let toStopID = "heidelberg-bismarckplatz"

    /// Writes the feed's files into `folder` (made if needed) and returns it: the reader reads it
    /// as any feed folder.
    @discardableResult
    public static func write(to folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try Data((text + "\n").utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    /// The real-time snapshots in order, each one protobuf `FeedMessage`.
    public static var snapshots: [[UInt8]] { snapshotsBase64.compactMap { Data(base64Encoded: $0).map(Array.init) } }
}
