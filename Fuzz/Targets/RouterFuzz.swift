import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTransitModel

/// The server's router with every route of the shared model and of the built-in features' models:
/// input is `METHOD path`. A match must be a route whose own matching agrees, and printing its path
/// from the parameters must match the same route again (the SDK prints what the server parses).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
    let method = parts.count == 2 ? String(parts[0]) : "GET"
    let path = String(parts.last ?? "")
    switch fuzzRouter.resolve(method: method, path: path) {
    case .matched(_, let parameters, _):
        let route = fuzzRoutes.first { $0.method.rawValue == method && $0.match(path: path) == parameters }
        guard let route else { fatalError("the router matched \(method) \(path) but no route does") }
        let printed = route.path(parameters)
        guard route.match(path: printed) != nil else { fatalError("\(route) prints \(printed), which it does not match") }
    case .methodNotAllowed(let allowed):
        precondition(!allowed.isEmpty)
    case .notFound:
        break
    }
    for route in fuzzRoutes { _ = route.match(path: path) }
    return 0
}

let fuzzRouter: Router = {
    var router = Router()
    for route in fuzzRoutes { router.add(route) { _ in HTTPResponse(status: 200) } }
    return router
}()

/// The core's routes and the built-in features'.
let fuzzRoutes = Routes.all + Routes.shopping + Routes.cookSuggest + Routes.transit
