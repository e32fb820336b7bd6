import LivelineModel

/// The shopping routes (`docs/features/shopping.md`; paths as in the source document, bearer
/// token), declared once: the server serves them, the SDK's calls (`APICaller+Shopping.swift`)
/// print their paths.
extension Routes {
    public static let shoppingWeek = Route(.get, "/api/shopping/{week}")
    public static let addShoppingItem = Route(.post, "/api/shopping/{week}/items")
    public static let updateShoppingItem = Route(.patch, "/api/shopping/items/{id}")
    public static let removeShoppingItem = Route(.delete, "/api/shopping/items/{id}")
    public static let startShopping = Route(.post, "/api/shopping/{week}/session")
    public static let shoppingHeartbeat = Route(.post, "/api/shopping/{week}/session/heartbeat")
    public static let endShopping = Route(.post, "/api/shopping/{week}/session/end")

    /// The shopping routes, in documentation order.
    public static let shopping: [Route] = [
        shoppingWeek, addShoppingItem, updateShoppingItem, removeShoppingItem, startShopping, shoppingHeartbeat, endShopping,
    ]
}
