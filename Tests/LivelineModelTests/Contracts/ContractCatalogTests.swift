import Foundation
import LivelineModel
import Synchronization
import Testing

/// The catalog of contracts loaded at run time only moves forward: a newer version replaces an
/// older one, never the other way round, whichever comes first; a missed name reads the source.
@Suite struct ContractCatalogTests {
    static func contract(_ type: String, version: Int) -> AnyContract {
        let file = ContractFile(
            typeName: type, version: version,
            schema: ContractSchema(attributes: [], contentState: (1...version).map { ContractField("k\($0)", .int, optional: $0 > 1, since: $0) }))
        return AnyContract(file: file, origin: .api)
    }

    @Test func anOlderVersionNeverReplacesANewerOneWhetherAddedOrRead() {
        let source = Mutex<[AnyContract]?>([Self.contract("A", version: 1)])
        let catalog = ContractCatalog()
        catalog.setSource { source.withLock { $0 } }
        #expect(catalog.contract(named: "A")?.version == 1)
        let before = catalog.generation
        catalog.add(Self.contract("A", version: 3))
        #expect(catalog.generation == before + 1)
        // A read that began before version 3 was stored, and an add that comes late, change nothing.
        catalog.refresh()
        catalog.add(Self.contract("A", version: 2))
        #expect(catalog.contract(named: "A")?.version == 3)
        #expect(catalog.generation == before + 1)
        // A source that cannot be read keeps what is held.
        source.withLock { $0 = nil }
        catalog.refresh()
        #expect(catalog.contracts.map(\.typeName) == ["A"])
    }

    @Test func aMissedNameReadsTheSourceAndStaleReadsItInTheBackground() async {
        let reads = Mutex(0)
        let stored = Mutex<[AnyContract]>([Self.contract("A", version: 1)])
        let catalog = ContractCatalog()
        catalog.setSource {
            reads.withLock { $0 += 1 }
            return stored.withLock { $0 }
        }
        #expect(reads.withLock { $0 } == 1)
        // A known name is answered without a read; an unknown one reads once.
        #expect(catalog.contract(named: "A") != nil)
        #expect(reads.withLock { $0 } == 1)
        #expect(catalog.contract(named: "B") == nil)
        #expect(reads.withLock { $0 } == 2)
        // Another instance stored B and a newer A: told, the catalog reads again on its own.
        stored.withLock { $0 = [Self.contract("A", version: 2), Self.contract("B", version: 1)] }
        for _ in 0..<5 { catalog.markStale() }
        var waited = 0
        while catalog.contracts.count < 2, waited < 500 {
            try? await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(catalog.contracts.map { "\($0.typeName)\($0.version)" } == ["A2", "B1"])
    }
}
