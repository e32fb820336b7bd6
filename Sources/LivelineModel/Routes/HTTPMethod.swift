/// An HTTP request method, as routes declare it.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable, Codable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
}
