import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTransitModel

extension ContractRegistry {
    /// The built-in contracts (`docs/contracts.md`), as the built-in features list them; the
    /// generic model knows none, so these tests name them here.
    static let builtIn = ContractRegistry([
        ShoppingActivityAttributes.self,
        CookSuggestActivityAttributes.self,
        TripLiveActivityAttributes.self,
    ])
}
