import Foundation

/// Whether real-time data can still be trusted, and whether a new snapshot is worth taking.
///
/// A feed whose header timestamp is more than 65 s old is stale: the gtfs-realtime-validator warns
/// about it (W008, https://github.com/MobilityData/gtfs-realtime-validator/blob/master/RULES.md#W008),
/// and Liveline then shows the schedule. A feed or trip update that is not newer than the last one
/// taken is ignored, as OneBusAway does (https://github.com/OneBusAway/onebusaway-application-modules).
public enum RealtimeFreshness {
    /// The oldest a feed may be and still be used (W008's 65 s).
    public static let maximumAge: TimeInterval = 65

    /// Whether `feed` is too old at `now` to be used. A feed without a header timestamp is stale:
    /// the reference requires one (https://gtfs.org/documentation/realtime/reference/#message-feedheader),
    /// and without it nothing says how old the data is. A timestamp ahead of `now` (the producer's
    /// clock runs fast) is not stale.
    public static func isStale(_ feed: RealtimeFeed, at now: Date, maximumAge: TimeInterval = maximumAge) -> Bool {
        guard let made = feed.header.date else { return true }
        return now.timeIntervalSince(made) > maximumAge
    }
}

extension RealtimeFeed {
    /// Whether this feed is too old at `now` to be used (``RealtimeFreshness/isStale(_:at:maximumAge:)``).
    public func isStale(at now: Date, maximumAge: TimeInterval = RealtimeFreshness.maximumAge) -> Bool {
        RealtimeFreshness.isStale(self, at: now, maximumAge: maximumAge)
    }

    /// Whether this feed should replace `last`: true when there is no last feed or either lacks
    /// a header timestamp (nothing to compare), else only when its timestamp is later.
    public func isNewer(than last: RealtimeFeed?) -> Bool {
        guard let mine = header.timestamp, let theirs = last?.header.timestamp else { return true }
        return mine > theirs
    }
}

extension RealtimeFeed.TripUpdate {
    /// Whether this trip update should replace `last`: as ``RealtimeFeed/isNewer(than:)``, by the
    /// updates' own timestamps (when the vehicle's progress was measured).
    public func isNewer(than last: RealtimeFeed.TripUpdate?) -> Bool {
        guard let mine = timestamp, let theirs = last?.timestamp else { return true }
        return mine > theirs
    }
}
