import Testing

@testable import LivelineCookSuggest

/// The catalogue ships as data: these checks keep it consistent enough to filter on its diet tags,
/// score on its mood tags and match "use up" answers on its ingredient names.
struct RecipeCatalogueTests {
    let all = RecipeCatalogue.all

    @Test func hasEnoughRecipesForEveryDiet() {
        #expect(all.count >= 40)
        for tag in Recipe.dietTags {
            #expect(all.count { $0.tags.contains(tag) } >= 5, "diet \(tag)")
        }
    }

    @Test func titlesAreGivenInBothLanguages() {
        for recipe in all {
            #expect(recipe.title.de.contains { !$0.isWhitespace }, "\(recipe.id): no German title")
            #expect(recipe.title.en.contains { !$0.isWhitespace }, "\(recipe.id): no English title")
        }
        let translated = all.count { $0.title.de != $0.title.en }
        #expect(translated * 4 >= all.count * 3, "only \(translated) of \(all.count) titles differ between de and en")
    }

    @Test func idsAreUniqueLowercaseAndOrdered() {
        let ids = all.map(\.id)
        #expect(Set(ids).count == ids.count, "duplicate ids: \(Dictionary(grouping: ids) { $0 }.filter { $0.value.count > 1 }.keys.sorted())")
        for id in ids {
            #expect(id.wholeMatch(of: /[a-z0-9-]+/) != nil, "id \(id)")
        }
        #expect(ids == ids.sorted())
        #expect(ids.contains("shakshuka"))
    }

    @Test func tagsAreKnownAndHold() {
        let known = Set(Recipe.dietTags + Recipe.moodTags)
        for recipe in all {
            #expect(recipe.tags.isSubset(of: known), "\(recipe.id): unknown tags \(recipe.tags.subtracting(known).sorted())")
            if recipe.tags.contains("vegan") {
                #expect(recipe.tags.isSuperset(of: ["vegetarian", "lactoseFree"]), "\(recipe.id): vegan but \(recipe.tags.sorted())")
            }
            if recipe.tags.contains("quick") {
                #expect(recipe.minutes <= 25, "\(recipe.id): quick but \(recipe.minutes) minutes")
            }
        }
    }

    /// A spot check of the diet tags against ingredients that obviously break them (not a full list).
    @Test func dietTagsDoNotContradictObviousIngredients() {
        let meatOrFish: Set = ["Hähnchenbrust", "Hähnchenschenkel", "Rinderhackfleisch", "Speckwürfel", "Lachs", "Garnelen", "Fischsauce"]
        let dairy: Set = ["Butter", "Milch", "Sahne", "Feta", "Parmesan", "Mozzarella", "Naturjoghurt", "Quark"]
        let gluten: Set = ["Nudeln", "Spaghetti", "Mehl", "Couscous", "Bulgur", "Sojasauce", "Semmelbrösel", "Weizentortillas"]
        for recipe in all {
            let names = Set(recipe.ingredients.map(\.name.de))
            if recipe.tags.contains("vegetarian") { #expect(names.isDisjoint(with: meatOrFish), "\(recipe.id)") }
            if recipe.tags.contains("vegan") { #expect(names.isDisjoint(with: dairy.union(["Eier", "Honig"])), "\(recipe.id)") }
            if recipe.tags.contains("lactoseFree") { #expect(names.isDisjoint(with: dairy), "\(recipe.id)") }
            if recipe.tags.contains("glutenFree") { #expect(names.isDisjoint(with: gluten), "\(recipe.id)") }
        }
    }

    @Test func minutesUnitsAndAmountsArePlausible() {
        for recipe in all {
            #expect((5...240).contains(recipe.minutes), "\(recipe.id): \(recipe.minutes) minutes")
            #expect(recipe.servings > 0, "\(recipe.id)")
            #expect(!recipe.ingredients.isEmpty, "\(recipe.id)")
            for ingredient in recipe.ingredients {
                #expect(Ingredient.units.contains(ingredient.unit), "\(recipe.id): \(ingredient.name.de) in \(ingredient.unit)")
                #expect(ingredient.amount > 0, "\(recipe.id): \(ingredient.name.de) \(ingredient.amount)")
            }
        }
    }

    /// Matching by name works only if an ingredient is spelt one way per language everywhere.
    @Test func anIngredientHasOneNameInEachLanguage() {
        var english: [String: Set<String>] = [:]
        var german: [String: Set<String>] = [:]
        for ingredient in all.flatMap(\.ingredients) {
            english[ingredient.name.de, default: []].insert(ingredient.name.en)
            german[ingredient.name.en, default: []].insert(ingredient.name.de)
        }
        for (de, names) in english.sorted(by: { $0.key < $1.key }) {
            #expect(names.count == 1, "\(de) is \(names.sorted()) in English")
        }
        for (en, names) in german.sorted(by: { $0.key < $1.key }) {
            #expect(names.count == 1, "\(en) is \(names.sorted()) in German")
        }
    }
}
