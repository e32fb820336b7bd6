import Foundation

/// Text in the two languages the server speaks (a user's `locale`: `de` or `en`).
public struct LocalizedText: Sendable, Hashable {
    public let de: String
    public let en: String

    public init(de: String, en: String) {
        self.de = de
        self.en = en
    }

    /// The text for `locale`: English for `en`, else German (the default language of households).
    public func text(_ locale: String) -> String { locale == "en" ? en : de }
}

/// One dish of the catalogue the proposals are scored from (`docs/features/cook-suggest.md`,
/// "Proposals"): it ships with the server as data.
public struct Recipe: Sendable, Hashable {
    /// Stable and unique, lowercase with dashes (`shakshuka`): sessions store it.
    public let id: String
    public let title: LocalizedText
    /// Preparation and cooking, in minutes.
    public let minutes: Int
    /// Servings the amounts are for.
    public let servings: Int
    /// Diet tags that hold (``Recipe/dietTags``) and mood tags that fit (``Recipe/moodTags``).
    public let tags: Set<String>
    public let ingredients: [Ingredient]

    public init(id: String, title: LocalizedText, minutes: Int, servings: Int = 2, tags: Set<String>, ingredients: [Ingredient]) {
        self.id = id
        self.title = title
        self.minutes = minutes
        self.servings = servings
        self.tags = tags
        self.ingredients = ingredients
    }

    /// Hard filters: a participant's `diet` lists the tags that must hold.
    public static let dietTags: [String] = ["vegetarian", "vegan", "glutenFree", "lactoseFree"]
    /// Soft tags: a participant's `moods` raise the score of recipes that have them.
    public static let moodTags: [String] = ["quick", "comfort", "fresh", "spicy", "asian", "italian", "light", "hearty"]
}

/// One ingredient with its amount for the recipe's servings.
public struct Ingredient: Sendable, Hashable {
    /// What goes on the shopping list, e.g. `Zwiebeln` / `onions`.
    public let name: LocalizedText
    public let amount: Double
    /// `g`, `kg`, `ml`, `l`, `piece`, `tbsp`, `tsp`, `pinch`, `clove`, `bunch`, `can`.
    public let unit: String

    public init(_ de: String, _ en: String, _ amount: Double, _ unit: String) {
        self.name = LocalizedText(de: de, en: en)
        self.amount = amount
        self.unit = unit
    }

    public static let units: Set<String> = ["g", "kg", "ml", "l", "piece", "tbsp", "tsp", "pinch", "clove", "bunch", "can"]
}
