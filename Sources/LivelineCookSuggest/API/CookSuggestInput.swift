import Foundation
import LivelineHTTP
import LivelineModel
import LivelineShopping

/// The checks of a participant's answers: each refusal names the field (`diet[1]`, `maxMinutes`)
/// and says what is expected.
enum CookSuggestInput {
    static let minutes = 5...600
    static let servings = 1...20
    static let useUpLength = 1...60
    static let useUpCount = 20

    /// `answers` as stored (names trimmed), or a 400 naming the first field that is wrong.
    static func checked(_ answers: CookSuggestAnswers) throws -> CookSuggestAnswers {
        var checked = answers
        if let value = answers.maxMinutes, !minutes.contains(value) {
            throw HTTPError.badRequest("maxMinutes must be a whole number of minutes from 5 to 600, not \(value)", field: "maxMinutes")
        }
        if let value = answers.servings, !servings.contains(value) {
            throw HTTPError.badRequest("servings must be a whole number from 1 to 20, not \(value)", field: "servings")
        }
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
                guard useUpLength.contains(trimmed.count) else {
                    throw HTTPError.badRequest("useUp[\(index)] must be an ingredient's name of 1 to 60 characters", field: "useUp[\(index)]")
                }
                return trimmed
            }
        }
        return checked
    }

    /// `YYYY-MM-DD`, a real day.
    static func isDay(_ text: String) -> Bool { ShoppingWeek.containing(text) != nil }
}
