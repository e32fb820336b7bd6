/// A use of a ``TestServer`` its mode does not serve (a port asked of an in-process server, an
/// event stream asked of one).
public struct TestServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
