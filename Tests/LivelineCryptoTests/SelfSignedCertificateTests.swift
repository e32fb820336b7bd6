import COpenSSL
import Foundation
import LivelineCrypto
import Testing

struct SelfSignedCertificateTests {
    /// Parses PEM text with OpenSSL directly (not through LivelineCrypto) and passes the object to
    /// `body`.
    private func withParsed<R>(
        _ pem: String,
        _ read: (OpaquePointer?) -> OpaquePointer?,
        free: (OpaquePointer?) -> Void,
        _ body: (OpaquePointer) throws -> R
    ) throws -> R {
        let bytes = Array(pem.utf8)
        return try bytes.withUnsafeBytes { buffer in
            let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count))
            defer { BIO_free(bio) }
            let object = try #require(read(bio), "OpenSSL could not parse the PEM")
            defer { free(object) }
            return try body(object)
        }
    }

    private func withCertificate<R>(_ pem: String, _ body: (OpaquePointer) throws -> R) throws -> R {
        try withParsed(pem, { PEM_read_bio_X509($0, nil, nil, nil) }, free: { X509_free($0) }, body)
    }

    private func withPrivateKey<R>(_ pem: String, _ body: (OpaquePointer) throws -> R) throws -> R {
        try withParsed(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }, free: { EVP_PKEY_free($0) }, body)
    }

    @Test func certificateHasTheAdvertisedContents() throws {
        let generated = try SelfSignedCertificate.generate()
        #expect(generated.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(generated.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        // The key is a P-256 key LivelineCrypto itself accepts.
        _ = try ES256PrivateKey(pem: generated.privateKeyPEM)

        try withCertificate(generated.certificatePEM) { certificate in
            #expect(X509_get_version(certificate) == 2)  // v3
            #expect(X509_check_ip_asc(certificate, "127.0.0.1", 0) == 1)
            #expect(X509_check_host(certificate, "localhost", 9, 0, nil) == 1)
            #expect(X509_check_host(certificate, "example.com", 11, 0, nil) != 1)
            #expect(X509_get_signature_nid(certificate) == NID_ecdsa_with_SHA256)
            #expect(X509_check_ca(certificate) >= 1)
            #expect(X509_check_issued(certificate, certificate) == X509_V_OK)

            var oneline = [CChar](repeating: 0, count: 256)
            X509_NAME_oneline(X509_get_subject_name(certificate), &oneline, Int32(oneline.count))
            #expect(oneline.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } == "/CN=Liveline sandbox")

            // Valid from about an hour ago for 825 days.
            var anHourAgoPlus = time(nil) - 3_540
            var anHourAgoMinus = time(nil) - 3_660
            #expect(X509_cmp_time(X509_get0_notBefore(certificate), &anHourAgoPlus) < 0)
            #expect(X509_cmp_time(X509_get0_notBefore(certificate), &anHourAgoMinus) > 0)
            var day824 = time(nil) + 824 * 86_400
            var day826 = time(nil) + 826 * 86_400
            #expect(X509_cmp_time(X509_get0_notAfter(certificate), &day824) > 0)
            #expect(X509_cmp_time(X509_get0_notAfter(certificate), &day826) < 0)

            try withPrivateKey(generated.privateKeyPEM) { key in
                #expect(X509_check_private_key(certificate, key) == 1)
            }
            // Not the key of another certificate.
            try withPrivateKey(try SelfSignedCertificate.generate().privateKeyPEM) { other in
                #expect(X509_check_private_key(certificate, other) != 1)
            }
            ERR_clear_error()
        }
    }

    @Test func serialsAreRandomAndCommonNameIsConfigurable() throws {
        let a = try SelfSignedCertificate.generate(commonName: "Other name", days: 10)
        let b = try SelfSignedCertificate.generate(commonName: "Other name", days: 10)
        let folder = try TemporaryFolder()
        let fileA = try folder.write(a.certificatePEM, to: "a.pem")
        let fileB = try folder.write(b.certificatePEM, to: "b.pem")
        let outA = try ExternalProcess.run("openssl", ["x509", "-in", fileA.path, "-noout", "-serial", "-subject", "-issuer"])
        let outB = try ExternalProcess.run("openssl", ["x509", "-in", fileB.path, "-noout", "-serial"])
        #expect(outA.stdout.contains("subject=CN = Other name"), "\(outA.stdout)")
        #expect(outA.stdout.contains("issuer=CN = Other name"), "\(outA.stdout)")
        let serialA = try #require(outA.stdout.split(separator: "\n").first { $0.hasPrefix("serial=") })
        let serialB = try #require(outB.stdout.split(separator: "\n").first { $0.hasPrefix("serial=") })
        #expect(serialA != serialB)
        #expect(serialA.count == "serial=".count + 32)  // 16 bytes
    }

    @Test func badArgumentsAreRefused() {
        #expect(throws: CryptoError.self) { try SelfSignedCertificate.generate(commonName: "") }
        #expect(throws: CryptoError.self) { try SelfSignedCertificate.generate(commonName: String(repeating: "x", count: 65)) }
        #expect(throws: CryptoError.self) { try SelfSignedCertificate.generate(days: 0) }
    }

    @Test func opensslCLIVerifiesItAsItsOwnCA() throws {
        let generated = try SelfSignedCertificate.generate()
        let folder = try TemporaryFolder()
        let cert = try folder.write(generated.certificatePEM, to: "cert.pem")
        let plain = try ExternalProcess.run("openssl", ["verify", "-CAfile", cert.path, cert.path])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == "\(cert.path): OK\n")
        // As a TLS server certificate for 127.0.0.1 and localhost, under strict X.509 rules.
        for check in [["-verify_ip", "127.0.0.1"], ["-verify_hostname", "localhost"]] {
            let strict = try ExternalProcess.run(
                "openssl", ["verify", "-x509_strict", "-purpose", "sslserver"] + check + ["-CAfile", cert.path, cert.path]
            )
            #expect(strict.status == 0, "\(check): \(strict.stdout) \(strict.stderr)")
            #expect(strict.stdout == "\(cert.path): OK\n")
        }
        let wrongHost = try ExternalProcess.run("openssl", ["verify", "-verify_hostname", "example.com", "-CAfile", cert.path, cert.path])
        #expect(wrongHost.status != 0)

        let text = try ExternalProcess.run("openssl", ["x509", "-in", cert.path, "-noout", "-ext", "subjectAltName,basicConstraints"])
        #expect(text.stdout.contains("IP Address:127.0.0.1"), "\(text.stdout)")
        #expect(text.stdout.contains("DNS:localhost"), "\(text.stdout)")
        #expect(text.stdout.contains("CA:TRUE"), "\(text.stdout)")
    }

    @Test func loadOrCreateWritesThenReuses() throws {
        let folder = try TemporaryFolder()
        let target = folder.url.appendingPathComponent("tls/sandbox")  // created on demand

        let first = try SelfSignedCertificate.loadOrCreate(in: target)
        #expect(first.created)
        #expect(first.certificate == target.appendingPathComponent("cert.pem"))
        #expect(first.privateKey == target.appendingPathComponent("key.pem"))
        #expect(try mode(first.privateKey) == 0o600)
        let certificatePEM = try String(contentsOf: first.certificate, encoding: .utf8)
        let keyPEM = try String(contentsOf: first.privateKey, encoding: .utf8)
        try withCertificate(certificatePEM) { certificate in
            try withPrivateKey(keyPEM) { key in #expect(X509_check_private_key(certificate, key) == 1) }
        }
        // No temporary files left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).sorted() == ["cert.pem", "key.pem"])

        let second = try SelfSignedCertificate.loadOrCreate(in: target)
        #expect(!second.created)
        #expect(try String(contentsOf: second.certificate, encoding: .utf8) == certificatePEM)
        #expect(try String(contentsOf: second.privateKey, encoding: .utf8) == keyPEM)

        // A key file someone loosened is reused and tightened back to 0600.
        #expect(chmod(first.privateKey.path, 0o644) == 0)
        let third = try SelfSignedCertificate.loadOrCreate(in: target)
        #expect(!third.created)
        #expect(try mode(third.privateKey) == 0o600)
        #expect(try String(contentsOf: third.privateKey, encoding: .utf8) == keyPEM)
    }

    /// A server listening on another address than 127.0.0.1 (the sandbox's `--host`) gets a
    /// certificate naming it, and one that does not is replaced.
    @Test func anotherListeningAddressIsNamedAndACertificateWithoutItReplaced() throws {
        let generated = try SelfSignedCertificate.generate(addresses: ["10.213.0.2"])
        try withCertificate(generated.certificatePEM) { certificate in
            #expect(X509_check_ip_asc(certificate, "10.213.0.2", 0) == 1)
            #expect(X509_check_ip_asc(certificate, "127.0.0.1", 0) == 1)
            #expect(X509_check_ip_asc(certificate, "10.213.0.3", 0) != 1)
            #expect(X509_check_host(certificate, "localhost", 9, 0, nil) == 1)
        }
        #expect(throws: CryptoError.self) { try SelfSignedCertificate.generate(addresses: ["not an address"]) }

        let folder = try TemporaryFolder()
        let first = try SelfSignedCertificate.loadOrCreate(in: folder.url)
        #expect(try !SelfSignedCertificate.loadOrCreate(in: folder.url).created)
        let moved = try SelfSignedCertificate.loadOrCreate(in: folder.url, address: "10.213.0.6")
        #expect(moved.created, "a certificate without the address is replaced")
        try withCertificate(try String(contentsOf: moved.certificate, encoding: .utf8)) { certificate in
            #expect(X509_check_ip_asc(certificate, "10.213.0.6", 0) == 1)
        }
        #expect(try !SelfSignedCertificate.loadOrCreate(in: folder.url, address: "10.213.0.6").created)
        #expect(try !SelfSignedCertificate.loadOrCreate(in: folder.url).created, "127.0.0.1 is always named")
        #expect(first.certificate == moved.certificate)
        ERR_clear_error()
    }

    @Test(arguments: ["expiring", "mismatched", "corrupt", "keyMissing"])
    func loadOrCreateReplacesUnusableFiles(problem: String) throws {
        let folder = try TemporaryFolder()
        let cert = folder.url.appendingPathComponent("cert.pem")
        let key = folder.url.appendingPathComponent("key.pem")
        let original = try SelfSignedCertificate.generate()
        switch problem {
        case "expiring":  // valid for less than another day
            let short = try SelfSignedCertificate.generate(days: 1)
            try folder.write(short.certificatePEM, to: "cert.pem")
            try folder.write(short.privateKeyPEM, to: "key.pem")
        case "mismatched":
            try folder.write(original.certificatePEM, to: "cert.pem")
            try folder.write(try SelfSignedCertificate.generate().privateKeyPEM, to: "key.pem")
        case "corrupt":
            try folder.write("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", to: "cert.pem")
            try folder.write(original.privateKeyPEM, to: "key.pem")
        default:
            try folder.write(original.certificatePEM, to: "cert.pem")
        }
        let before = try? String(contentsOf: cert, encoding: .utf8)

        let result = try SelfSignedCertificate.loadOrCreate(in: folder.url)
        #expect(result.created)
        #expect(try mode(key) == 0o600)
        let after = try String(contentsOf: cert, encoding: .utf8)
        #expect(after != before)
        try withCertificate(after) { certificate in
            try withPrivateKey(try String(contentsOf: key, encoding: .utf8)) { pkey in
                #expect(X509_check_private_key(certificate, pkey) == 1)
            }
        }
        // And the replacement is reused from then on.
        #expect(try !SelfSignedCertificate.loadOrCreate(in: folder.url).created)
    }

    @Test func loadOrCreateReportsAnUnwritableFolder() throws {
        let folder = try TemporaryFolder()
        let file = try folder.write("not a folder", to: "file")
        let error = #expect(throws: CryptoError.self) { try SelfSignedCertificate.loadOrCreate(in: file.appendingPathComponent("sub")) }
        #expect(error?.code == .unwritableFile)
        #expect(error?.message.contains(file.path) == true, "\(String(describing: error))")
    }

    private func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }
}
