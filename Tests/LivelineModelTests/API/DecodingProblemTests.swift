import Foundation
import LivelineModel
import Testing

struct DecodingProblemTests {
    @Test func namesTheKeyPathWithArrayIndexes() throws {
        let json = Data(
            #"{"open":1,"done":0,"total":1,"estEur":0,"estPriced":0,"nextOpen":[{"id":1,"label":"a"},{"id":2}],"activeShoppers":[],"rev":1}"#.utf8)
        do {
            _ = try JSONDecoder().decode(ShoppingActivityAttributes.ContentState.self, from: json)
            Issue.record("decoding must fail")
        } catch let error as DecodingError {
            let problem = DecodingProblem(error)
            #expect(problem.keyPath == "nextOpen[1].label")
            #expect(problem.reason == "is missing")
        }
    }
}
