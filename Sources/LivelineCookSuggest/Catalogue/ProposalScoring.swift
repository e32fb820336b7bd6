import Foundation
import LivelineCookSuggestModel
import LivelineModel

/// Why a recipe was proposed, kept as a code and written out in each viewer's language.
public enum ProposalReason: Sendable, Hashable {
    /// It meets a diet every participant asked for.
    case diet(String)
    /// It fits a mood a participant asked for.
    case mood(String)
    /// It uses an ingredient to use up (its German name: the catalogue's key).
    case useUp(String)
    /// It uses an ingredient that is on the week's open shopping list already.
    case onList(String)
    /// How long it takes (when nothing else speaks for it).
    case minutes(Int)

    /// `diet:vegetarian`, `mood:quick`, `useUp:Zucchini`, `onList:Zwiebeln`, `minutes:20`.
    var code: String {
        switch self {
        case .diet(let tag): "diet:\(tag)"
        case .mood(let tag): "mood:\(tag)"
        case .useUp(let name): "useUp:\(name)"
        case .onList(let name): "onList:\(name)"
        case .minutes(let minutes): "minutes:\(minutes)"
        }
    }

    init?(code: String) {
        guard let colon = code.firstIndex(of: ":") else { return nil }
        let value = String(code[code.index(after: colon)...])
        switch code[..<colon] {
        case "diet": self = .diet(value)
        case "mood": self = .mood(value)
        case "useUp": self = .useUp(value)
        case "onList": self = .onList(value)
        case "minutes":
            guard let minutes = Int(value) else { return nil }
            self = .minutes(minutes)
        default: return nil
        }
    }

    /// The reason as the card and the app show it, in `locale`.
    public func text(_ locale: String, recipe: Recipe?) -> String {
        let english = locale == "en"
        func ingredient(_ german: String) -> String {
            let match = recipe?.ingredients.first { $0.name.de == german }
            return match?.name.text(locale) ?? german
        }
        switch self {
        case .diet(let tag): return Self.tagNames[tag]?.text(locale) ?? tag
        case .mood(let tag): return Self.tagNames[tag]?.text(locale) ?? tag
        case .useUp(let name): return english ? "uses up \(ingredient(name))" : "verbraucht \(ingredient(name))"
        case .onList(let name): return english ? "\(ingredient(name)) is on the list" : "\(ingredient(name)) steht schon auf der Liste"
        case .minutes(let minutes): return english ? "\(minutes) minutes" : "\(minutes) Minuten"
        }
    }

    static let tagNames: [String: LocalizedText] = [
        "vegetarian": LocalizedText(de: "vegetarisch", en: "vegetarian"),
        "vegan": LocalizedText(de: "vegan", en: "vegan"),
        "glutenFree": LocalizedText(de: "glutenfrei", en: "gluten-free"),
        "lactoseFree": LocalizedText(de: "laktosefrei", en: "lactose-free"),
        "quick": LocalizedText(de: "schnell", en: "quick"),
        "comfort": LocalizedText(de: "zum Wohlfühlen", en: "comfort food"),
        "fresh": LocalizedText(de: "frisch", en: "fresh"),
        "spicy": LocalizedText(de: "scharf", en: "spicy"),
        "asian": LocalizedText(de: "asiatisch", en: "Asian"),
        "italian": LocalizedText(de: "italienisch", en: "Italian"),
        "light": LocalizedText(de: "leicht", en: "light"),
        "hearty": LocalizedText(de: "herzhaft", en: "hearty"),
    ]
}

/// A recipe that passed the hard filters, with its score and reasons.
public struct ScoredRecipe: Sendable, Hashable {
    public var recipe: Recipe
    public var score: Double
    public var reasons: [ProposalReason]
}

/// Scores the catalogue for a session (`docs/features/cook-suggest.md`, "Proposals"). A pure
/// function of its inputs: the same answers, list and history give the same proposals.
///
/// Hard filters: every diet any participant asked for holds; the recipe takes no longer than the
/// smallest `maxMinutes`. Soft score: +3 for each participant's mood it fits, +4 for each
/// ingredient to use up it uses, +2 for each ingredient already on the week's open list, −8 when
/// the household decided on it in the last 7 days. Ties go to the quicker recipe, then the id.
public enum ProposalScoring {
    public static let proposalCount = 3

    public struct Inputs: Sendable, Hashable {
        public var answers: [CookSuggestAnswers]
        /// The labels of the open items on the shopping list of the week of the session's day.
        public var openItems: [String]
        /// Recipes the household decided on in the 7 days before.
        public var recentlyDecided: Set<String>

        public init(answers: [CookSuggestAnswers], openItems: [String], recentlyDecided: Set<String>) {
            self.answers = answers
            self.openItems = openItems
            self.recentlyDecided = recentlyDecided
        }
    }

    /// The best ``proposalCount`` recipes for `inputs`, best first; empty when none passes the filters.
    public static func propose(_ inputs: Inputs, catalogue: [Recipe] = RecipeCatalogue.all) -> [ScoredRecipe] {
        let diets = Set(inputs.answers.flatMap { $0.diet ?? [] })
        let maxMinutes = inputs.answers.compactMap(\.maxMinutes).min()
        let moods = inputs.answers.flatMap { Set($0.moods ?? []) }  // a mood both asked for counts twice
        let useUp = Set(inputs.answers.flatMap { $0.useUp ?? [] })
        let scored = catalogue.compactMap { recipe -> ScoredRecipe? in
            guard diets.isSubset(of: recipe.tags), recipe.minutes <= (maxMinutes ?? Int.max) else { return nil }
            var score = 0.0
            var reasons: [ProposalReason] = []
            var usedUp: [ProposalReason] = []
            var listed: [ProposalReason] = []
            for ingredient in recipe.ingredients {
                if useUp.contains(where: { IngredientMatch.matches(ingredient.name, $0) }) {
                    score += 4
                    usedUp.append(.useUp(ingredient.name.de))
                } else if inputs.openItems.contains(where: { IngredientMatch.matches(ingredient.name, $0) }) {
                    score += 2
                    listed.append(.onList(ingredient.name.de))
                }
            }
            var fitting: [ProposalReason] = []
            for mood in moods where recipe.tags.contains(mood) {
                score += 3
                if !fitting.contains(.mood(mood)) { fitting.append(.mood(mood)) }
            }
            if inputs.recentlyDecided.contains(recipe.id) { score -= 8 }
            reasons = usedUp + listed + fitting + diets.sorted().map(ProposalReason.diet)
            if reasons.isEmpty { reasons = [.minutes(recipe.minutes)] }
            return ScoredRecipe(recipe: recipe, score: score, reasons: Array(reasons.prefix(3)))
        }
        return Array(
            scored.sorted { left, right in
                if left.score != right.score { return left.score > right.score }
                if left.recipe.minutes != right.recipe.minutes { return left.recipe.minutes < right.recipe.minutes }
                return left.recipe.id < right.recipe.id
            }.prefix(proposalCount))
    }
}

/// Whether a name someone wrote (a shopping list label, an ingredient to use up) means a
/// catalogue ingredient: case and accents aside, every word of the ingredient's German or English
/// name is a word of the text, a plural ending (`Zwiebel`/`Zwiebeln`, `tomato`/`tomatoes`) allowed.
enum IngredientMatch {
    static func matches(_ name: LocalizedText, _ text: String) -> Bool {
        let written = words(text)
        guard !written.isEmpty else { return false }
        return [name.de, name.en].contains { candidate in
            let wanted = words(candidate)
            return !wanted.isEmpty && wanted.allSatisfy { word in written.contains { sameWord($0, word) } }
        }
    }

    static func words(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            .split { !$0.isLetter }.map(String.init)
    }

    static func sameWord(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        let (short, long) = a.count < b.count ? (a, b) : (b, a)
        return short.count >= 3 && long.hasPrefix(short) && long.count - short.count <= 2
    }
}
