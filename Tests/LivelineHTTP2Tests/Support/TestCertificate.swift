import Foundation
import LivelineCrypto
import LivelineHTTP2

/// A self-signed certificate in a temporary folder, made once for the whole test run.
enum TestCertificate {
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-h2-tests-\(getpid())")
        _ = try? SelfSignedCertificate.loadOrCreate(in: folder)
        return folder
    }()

    static var certificateFile: String { folder.appendingPathComponent("cert.pem").path }
    static var keyFile: String { folder.appendingPathComponent("key.pem").path }

    static func serverContext() throws -> TLSContext {
        try TLSContext.server(certificateFile: certificateFile, privateKeyFile: keyFile)
    }

    static func clientContext(offerALPN: Bool = true) throws -> TLSContext {
        try TLSContext.client(caFile: certificateFile, offerALPN: offerALPN)
    }
}
