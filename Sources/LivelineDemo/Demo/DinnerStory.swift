import Foundation
import LivelineApps
import LivelineClient
import LivelineCookSuggestModel
import LivelineDevices
import LivelineModel

/// The co-op dinner plan (`docs/features/cook-suggest.md`): Dennis asks Jaqueline what to cook
/// tonight — his app starts his card, hers get it by push-to-start with the invitation — she taps
/// the invitation, both answer and get ready, the kitchen thinks, she picks a dish, both confirm:
/// decided, every card ends with the dish, and its missing ingredients go onto the week's list.
struct DinnerStory: DemoStory {
    let stage: DemoStage
    var name: String { "dinner" }

    /// Each round's wishes: his, then hers.
    static let wishes: [(CookSuggestAnswers, String, CookSuggestAnswers, String)] = [
        (
            CookSuggestAnswers(maxMinutes: 40, moods: ["quick"]), "something quick (40 minutes at most)",
            CookSuggestAnswers(diet: ["vegetarian"], useUp: ["Zucchini"]), "it vegetarian, using up the zucchini"
        ),
        (
            CookSuggestAnswers(moods: ["comfort", "hearty"]), "something hearty", CookSuggestAnswers(moods: ["italian"]), "Italian"
        ),
        (
            CookSuggestAnswers(maxMinutes: 30, moods: ["fresh"]), "something fresh (30 minutes at most)",
            CookSuggestAnswers(moods: ["asian", "spicy"]), "it Asian and spicy"
        ),
    ]

    func round(_ number: Int) async throws {
        let household = stage.household
        let fleet = household.fleet
        let his = CookSuggestApp(device: household.dennisPhone.device, client: household.dennisPhone.client, fleet: fleet)
        let hers = CookSuggestApp(device: household.herPhones[0].device, client: household.herPhones[0].client, fleet: fleet)
        let say = { (text: String) in stage.narrator.say(name, text) }
        await household.swipeAwayEnded(CookSuggestActivityAttributes.typeName)

        say("Dennis asks Jaqueline what to cook tonight")
        var session = try await his.start(partner: household.jaqueline.id)
        if session.created != true {
            // An earlier demo on this data folder left tonight's session open: it is called off first.
            try await his.cancel(session.id)
            session = try await his.start(partner: household.jaqueline.id)
        }
        let id = session.id
        let herKey = "cooksuggest:\(id):\(household.jaqueline.id)"
        household.expect("cooksuggest:\(id):\(household.dennis.id)", on: [household.dennisPhone])
        household.expect(herKey, on: household.herPhones)
        say("his app starts his card; her phones get theirs by push-to-start, her iPhones the invitation")
        await stage.until(timeout: 15) { household.herPhones.allSatisfy { $0.device.activity(contextKey: herKey) != nil } }
        guard await stage.pause() else { return }

        guard
            await stage.until(
                timeout: 15,
                {
                    hers.device.notifications.contains { $0.link.flatMap(LivelineClient.cookSuggestSessionID(fromLink:)) == id }
                })
        else {
            say("⚠ the invitation did not reach \(hers.device.id)")
            return
        }
        _ = try await hers.openInvitation()
        let (mine, mineText, theirs, theirsText) = Self.wishes[number % Self.wishes.count]
        say("Jaqueline taps the invitation and joins; Dennis wants \(mineText), Jaqueline wants \(theirsText)")
        try await his.answer(id, mine)
        try await hers.answer(id, theirs)
        guard await stage.pause() else { return }

        try await hers.ready(id)
        try await his.ready(id)
        say("both are ready: the kitchen thinks")
        var proposed: CookSuggestSessionResponse?
        await stage.until(timeout: 60) {
            proposed = try? await his.client.cookSuggestSession(id)
            return proposed?.state == "proposed"
        }
        guard let proposals = proposed?.proposals, !proposals.isEmpty, proposed?.state == "proposed" else { return }
        say("\(proposals.count) proposals: \(ShoppingStory.list(proposals.map(\.title)))")
        guard await stage.pause() else { return }

        let dish = proposals[number % proposals.count]
        try await hers.pick(id, dish.id)
        say("Jaqueline picks \(dish.title) (\(dish.minutes) min); Dennis's card asks him")
        guard await stage.pause() else { return }

        try await hers.confirm(id, dish.id)
        var decided = try await his.confirm(id, dish.id)
        if decided.state != "decided" {
            await stage.until(timeout: 30) {
                if let now = try? await his.client.cookSuggestSession(id) { decided = now }
                return decided.state == "decided"
            }
        }
        let ingredients = decided.decided?.ingredients.count ?? 0
        say("the dish is decided: \(dish.title); every card ends with it, \(ingredients) ingredients go onto the week's list")
        _ = await stage.pause(3)
    }
}
