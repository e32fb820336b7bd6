import Foundation
import Liveline
import LivelineAPI
import LivelineEngine
import LivelineLog
import LivelineStore
import Testing

/// The features' `LIVELINE_*` settings are read by their rows: a value outside a row's range is
/// refused in the row's words before the feature installs anything.
@Suite struct FeatureSettingsTests {
    /// A feature's refusal of `environment` at install, nil when it installs.
    private func refusal(of feature: any Feature, _ environment: [String: String]) throws -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-feature-settings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.openSQLite(folder: folder, features: Assembly.features.map(\.featureMigrations))
        let clock: @Sendable () -> Date = { Date() }
        let setup = FeatureSetup(
            environment: environment, clock: clock, door: EngineDoor(store: store, clock: clock), logger: Logger(sink: .discarding()))
        do {
            try feature.install(into: setup)
            return nil
        } catch let error as FeatureSettingError {
            return error.message
        }
    }

    @Test func aWholeNumberOutsideItsRangeIsRefusedInTheRowsWords() throws {
        var checked = 0
        for feature in Assembly.features {
            for setting in feature.settings {
                guard let range = setting.range else { continue }
                for bad in [String(range.upperBound + 1), String(range.lowerBound - 1), "many"] {
                    let message = try refusal(of: feature, [setting.name: bad])
                    #expect(message == "\(setting.name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(bad)'")
                    #expect(message == setting.refusal(bad))
                }
                checked += 1
            }
        }
        #expect(checked >= 4, "the features' whole-number settings")
    }

    @Test func aTimeZoneThatDoesNotExistIsRefusedByName() throws {
        let cookSuggest = try #require(Assembly.features.first { $0.name == "cooksuggest" })
        #expect(
            try refusal(of: cookSuggest, ["LIVELINE_COOKSUGGEST_TIME_ZONE": "Mars/Olympus"])
                == "LIVELINE_COOKSUGGEST_TIME_ZONE must be a time zone name such as Europe/Berlin, not 'Mars/Olympus'")
    }
}
