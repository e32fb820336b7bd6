import Foundation

/// One of the demo's stories (docs/operations.md, "The demo"): played round after round until the demo stops.
protocol DemoStory: Sendable {
    /// The word its narration lines carry (`shopping`, `dinner`, `tram`).
    var name: String { get }
    var stage: DemoStage { get }
    /// One round of the story; it returns early when the demo stops.
    func round(_ number: Int) async throws
}

extension DemoStory {
    /// Plays rounds until the demo stops; a round that fails is told and the next one begins.
    func play() async {
        var number = 0
        while !stage.isStopping {
            do {
                try await round(number)
            } catch {
                stage.narrator.say(name, "⚠ this round failed: \(error); starting again")
                _ = await stage.pause(2)
            }
            number += 1
        }
    }
}
