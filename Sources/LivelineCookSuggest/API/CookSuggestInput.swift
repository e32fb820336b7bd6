import Foundation
import LivelineAPI
import LivelineCookSuggestModel
import LivelineHTTP
import LivelineModel
import LivelineShopping

/// The checks of a participant's answers: each refusal names the field (`diet[1]`, `maxMinutes`)
/// and says what is expected.
enum CookSuggestInput {
    static let maxMinutes = FieldRule("maxMinutes", .integer(5...600), about: "minutes the meal may take")
    static let servings = FieldRule("servings", .integer(1...20), about: "how many eat")
    static let useUp = FieldRule("useUp", .text(length: 1...60, nonBlank: true), about: "an ingredient's name")
    static let useUpCount = 20
    static let proposalID = FieldRule("proposal_id", .text(length: 1...200), about: "a proposal's id")
    static let date = CommonFields.day("date", about: "the day the meal is for")

    /// `answers` as stored (names trimmed), or a 400 naming the first field that is wrong.
    static func checked(_ answers: CookSuggestAnswers) throws -> CookSuggestAnswers {
        var checked = answers
        if let value = answers.maxMinutes { try maxMinutes.integer(value) }
        if let value = answers.servings { try servings.integer(value) }
        for (index, tag) in (answers.diet ?? []).enumerated() where !Recipe.dietTags.contains(tag) {
            throw HTTPError.badRequest(
                "diet[\(index)] must be one of \(Recipe.dietTags.joined(separator: ", ")), not '\(tag.prefix(40))'", field: "diet[\(index)]")
        }
        for (index, tag) in (answers.moods ?? []).enumerated() where !Recipe.moodTags.contains(tag) {
            throw HTTPError.badRequest(
                "moods[\(index)] must be one of \(Recipe.moodTags.joined(separator: ", ")), not '\(tag.prefix(40))'", field: "moods[\(index)]")
        }
        if let names = answers.useUp {
            guard names.count <= useUpCount else {
                throw HTTPError.badRequest("useUp may name at most \(useUpCount) ingredients, not \(names.count)", field: "useUp")
            }
            checked.useUp = try names.enumerated().map { index, name in
                let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
                guard useUp.accepts(name) else {
                    throw HTTPError.badRequest("useUp[\(index)] must be an ingredient's name of 1 to 60 characters", field: "useUp[\(index)]")
                }
                return trimmed
            }
        }
        return checked
    }
}
