import Foundation
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineTestSupport
import Testing

/// `APNSSandbox.startBoth`: a development and a production sandbox from one folder, reached over
/// real HTTP/2 + TLS by one APNs client configuration per environment with the one key file and
/// the one CA file.
@Suite struct SandboxPairTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("liveline-sandbox-pair-\(UUID().uuidString)")
    }

    /// A client of `sandbox` signing with the key file and trusting the CA file given.
    static func client(of sandbox: APNSSandbox, keyFile: URL, caFile: URL) throws -> APNSClient {
        try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: APNSCredentials(keyFile: keyFile, keyID: sandbox.keyID, teamID: sandbox.teamID),
                environment: .local(devicePort: sandbox.devicePort, managementPort: sandbox.managementPort, caFile: caFile.path)
            ))
    }

    static func push(to token: String, bundleID: String) -> APNSNotification {
        .liveActivity(deviceToken: token, bundleID: bundleID, payload: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8))
    }

    @Test func bothEnvironmentsTakeTheOneKeyAndEachRecordsOnlyItsOwnPushes() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pair = try APNSSandbox.startBoth(SandboxConfiguration(folder: folder, controlPort: 0, bundleID: "com.example.pair"))
        defer { pair.stop() }
        let (development, production) = (pair.development, pair.production)
        #expect(development.environment == .development && production.environment == .production)
        #expect(pair[.production] === production && pair[.development] === development)
        #expect(Set([development.devicePort, production.devicePort, development.managementPort, production.managementPort]).count == 4)
        #expect(development.controlPort != nil && production.controlPort != nil && development.controlPort != production.controlPort)
        // One certificate and one key, made by the first and read by the second.
        #expect(production.certificateFile == development.certificateFile && production.keyFile == development.keyFile)
        #expect(production.signingKey.pkcs8PEM == development.signingKey.pkcs8PEM)
        #expect(production.bundleID == "com.example.pair" && production.keyID == development.keyID && production.teamID == development.teamID)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["AuthKey_\(development.keyID).p8", "cert.pem", "key.pem"])

        let debugClient = try Self.client(of: development, keyFile: development.keyFile, caFile: development.certificateFile)
        defer { debugClient.shutdown() }
        let storeClient = try Self.client(of: production, keyFile: development.keyFile, caFile: development.certificateFile)
        defer { storeClient.shutdown() }
        // A token known to both, and one only the production sandbox knows (an App Store build's).
        let shared = String(repeating: "ab", count: 32)
        let storeOnly = String(repeating: "5e", count: 32)
        development.registerDevice(token: shared)
        production.registerDevice(token: shared)
        production.registerDevice(token: storeOnly)

        let toDevelopment = Self.push(to: shared, bundleID: "com.example.pair")
        let toProduction = Self.push(to: shared, bundleID: "com.example.pair")
        let debugAnswer = await debugClient.send(toDevelopment)
        let storeAnswer = await storeClient.send(toProduction)
        #expect(debugAnswer.status == 200 && storeAnswer.status == 200, "\(debugAnswer.summary) / \(storeAnswer.summary)")
        // Development answers carry apns-unique-id, production ones do not (`SandboxEnvironment`).
        #expect(debugAnswer.uniqueID != nil)
        #expect(storeAnswer.uniqueID == nil && storeAnswer.apnsID == toProduction.apnsID)
        #expect(development.accepted(token: shared).map(\.apnsID) == [toDevelopment.apnsID])
        #expect(production.accepted(token: shared).map(\.apnsID) == [toProduction.apnsID])

        // The production token is unknown to the development sandbox, and only production takes it.
        let wrong = await debugClient.send(Self.push(to: storeOnly, bundleID: "com.example.pair"))
        #expect(wrong.status == 400 && wrong.reason == .badDeviceToken)
        let right = Self.push(to: storeOnly, bundleID: "com.example.pair")
        #expect(await storeClient.send(right).status == 200)
        #expect(production.accepted(token: storeOnly).map(\.apnsID) == [right.apnsID] && development.accepted(token: storeOnly).isEmpty)
        #expect(development.acceptedCount == 1 && production.acceptedCount == 2)

        // Each control port describes its own sandbox.
        for sandbox in pair.sandboxes {
            let info = try TestHTTPConnection(port: try #require(sandbox.controlPort)).request("GET", "/sandbox")
            #expect(info.json?["environment"] as? String == sandbox.environment.rawValue)
            #expect(info.json?["devicePort"] as? Int == sandbox.devicePort)
        }
    }

    @Test func theDevelopmentSandboxIsStoppedWhenTheProductionOneCannotStart() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let taken = try DeadPort()  // bound, never listening: the production sandbox cannot bind it
        // Two free ports for the development sandbox (released as these values end), where no
        // other test's server on port 0 can land after it stopped.
        let (devicePort, controlPort) = try { (try DeadPort.outsideEphemeralRange().port, try DeadPort.outsideEphemeralRange().port) }()
        let error = #expect(throws: (any Error).self) {
            try APNSSandbox.startBoth(
                SandboxConfiguration(folder: folder, devicePort: devicePort, controlPort: controlPort), productionDevicePort: taken.port)
        }
        // The production sandbox failed on its port, so the development one had started; it was
        // stopped: nothing listens on its ports any more.
        #expect("\(error.map { "\($0)" } ?? "")".contains("127.0.0.1:\(taken.port)"), "\(String(describing: error))")
        for port in [devicePort, controlPort] {
            #expect(throws: (any Error).self, "port \(port)") { try TestHTTPConnection(port: port, timeout: 2) }
        }
    }
}
