import Testing

@testable import LivelineTransit

@Suite struct GTFSModelTests {
    @Test func aRouteIsNamedByItsShortNameThenItsLongNameThenItsID() {
        #expect(GTFSRoute(id: "r1", agencyID: nil, shortName: "5", longName: "Mannheim – Heidelberg", type: 0).lineName == "5")
        #expect(GTFSRoute(id: "r1", agencyID: nil, shortName: "", longName: "Ringbahn", type: 0).lineName == "Ringbahn")
        #expect(GTFSRoute(id: "r1", agencyID: nil, shortName: nil, longName: nil, type: 3).lineName == "r1")
    }
}
