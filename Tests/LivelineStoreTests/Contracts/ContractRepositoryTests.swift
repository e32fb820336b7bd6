import Foundation
import LivelineModel
import LivelineStore
import Testing

/// Contract versions are kept for good, the latest per type is current, and the versions the
/// apps in the field were built with are counted by device.
struct ContractRepositoryTests {
    func record(_ type: String, _ version: Int, _ fingerprint: String) -> ContractVersionRecord {
        ContractVersionRecord(
            typeName: type, version: version, fingerprint: fingerprint, document: #"{"v":\#(version)}"#, origin: "api", createdAt: time(version))
    }

    @Test(arguments: DatabaseFactory.all)
    func theLatestVersionOfEachTypeIsCurrentAndEveryVersionIsKept(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            for (type, version, fingerprint) in [("B", 1, "b1"), ("A", 1, "a1"), ("A", 2, "a2"), ("A", 3, "a3")] {
                try store.contracts.withVersionsLocked(of: type) { try store.contracts.insert(record(type, version, fingerprint), in: $0) }
            }
            #expect(try store.contracts.latestVersions() == ["A": 3, "B": 1])
            #expect(try store.contracts.versions(of: "A").map(\.fingerprint) == ["a1", "a2", "a3"])
            #expect(try store.contracts.version(of: "A", fingerprint: "a2")?.document == #"{"v":2}"#)
            #expect(try store.contracts.version(of: "B", fingerprint: "a2") == nil)
            // A version number or a shape stored twice for one type is refused by the table.
            #expect(throws: (any Error).self) {
                try store.contracts.withVersionsLocked(of: "A") { try store.contracts.insert(record("A", 2, "other"), in: $0) }
            }
            #expect(throws: (any Error).self) {
                try store.contracts.withVersionsLocked(of: "A") { try store.contracts.insert(record("A", 4, "a1"), in: $0) }
            }
            #expect(try store.contracts.versions(of: "A").count == 3)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func installedVersionsAreCountedByDeviceFromStartAndUpdateTokens(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            _ = try store.makeContext("delivery:1", type: "Delivery")
            func register(
                _ kind: PushTokenKind, device: String, token: String, fingerprint: String?, type: String? = nil, key: String? = nil
            )
                throws
            {
                try store.tokens.register(
                    TokenRegistration(
                        householdID: ada.householdID, userID: ada.id, deviceID: device, kind: kind, environment: .production, token: token,
                        attributesType: type, contextKey: key, contractFingerprint: fingerprint), now: time(1))
            }
            // Phone 1 has v1 (a start token and an update token: one device), phone 2 v2, phone 3 says nothing.
            try register(.pushToStart, device: "p1", token: "aa01", fingerprint: "f1", type: "Delivery")
            try register(.update, device: "p1", token: "aa02", fingerprint: "f1", key: "delivery:1")
            try register(.pushToStart, device: "p2", token: "bb01", fingerprint: "f2", type: "Delivery")
            try register(.update, device: "p3", token: "cc01", fingerprint: nil, key: "delivery:1")
            try register(.pushToStart, device: "p4", token: "dd01", fingerprint: "f9", type: "Other")
            let installed = try store.contracts.installed("Delivery")
            #expect(
                Set(installed) == [
                    InstalledContractVersion(fingerprint: "f1", devices: 1), InstalledContractVersion(fingerprint: "f2", devices: 1),
                    InstalledContractVersion(fingerprint: nil, devices: 1),
                ])
            #expect(try store.contracts.installedFingerprints(contextKey: "delivery:1") == ["f1", nil])
            // The app updated (same token, new build): its row says the new fingerprint.
            try register(.update, device: "p1", token: "aa02", fingerprint: "f2", key: "delivery:1")
            #expect(try store.contracts.installedFingerprints(contextKey: "delivery:1") == ["f2", nil])
            #expect(try store.tokens.activeTokens(householdID: ada.householdID).first { $0.token == "aa02" }?.contractFingerprint == "f2")
        }
    }
}
