import Foundation
import LivelineServer
import Testing

/// `LIVELINE_RENEW_TYPES` and `LIVELINE_RENEWAL_LEAD_S` (docs/engine.md, "Renewal"): a list of types,
/// empty when unset or blank, and a lead beyond the 10-minute deadline margin.
@Suite struct RenewalSettingsTests {
    @Test func theTypesAreAListAndTheLeadIsSeconds() throws {
        let configuration = try ServerConfiguration.fromEnvironment([
            "LIVELINE_RENEW_TYPES": " TripLiveActivityAttributes, ShoppingActivityAttributes ,", "LIVELINE_RENEWAL_LEAD_S": "900",
        ])
        #expect(configuration.renewingTypes == ["TripLiveActivityAttributes", "ShoppingActivityAttributes"])
        #expect(configuration.renewalLead == 900)
        let unset = try ServerConfiguration.fromEnvironment(["LIVELINE_RENEW_TYPES": ""])
        #expect(unset.renewingTypes.isEmpty && unset.renewalLead == 1800)
    }

    @Test func aLeadWithinTheDeadlineMarginIsRefused() {
        #expect {
            try ServerConfiguration.fromEnvironment(["LIVELINE_RENEWAL_LEAD_S": "600"])
        } throws: { error in
            (error as? ConfigurationError)?.message == "LIVELINE_RENEWAL_LEAD_S must be a whole number from 660 to 7200, not '600'"
        }
    }
}
