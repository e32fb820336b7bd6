import Foundation
internal import COpenSSL

/// A self-signed TLS certificate for local servers such as the APNs sandbox.
///
/// P-256 key; subject and issuer `CN=<commonName>`; SAN `IP:127.0.0.1, DNS:localhost` (and any other
/// IPv4 addresses asked for: a server listening on another address); valid from
/// an hour ago (clock skew) for `days`; a random 128-bit positive serial; signed with ECDSA SHA-256.
/// It is its own CA (`basicConstraints: critical, CA:TRUE`, `keyUsage: critical, digitalSignature,
/// keyCertSign`, subject and authority key identifiers), so a client can trust it by using the
/// certificate file as its CA file (`curl --cacert cert.pem`, `openssl verify -CAfile cert.pem`),
/// including clients that verify strictly (`X509_V_FLAG_X509_STRICT`, Python 3.13's default).
/// The default 825 days is the longest validity Apple platforms accept for TLS server
/// certificates (Apple support HT210176).
public struct SelfSignedCertificate: Sendable {
    /// The certificate, `-----BEGIN CERTIFICATE-----`.
    public let certificatePEM: String
    /// Its private key as unencrypted PKCS#8, `-----BEGIN PRIVATE KEY-----`.
    public let privateKeyPEM: String

    /// Generates a new key and certificate; `addresses` are IPv4 addresses its SAN names besides
    /// 127.0.0.1.
    public static func generate(
        commonName: String = "Liveline sandbox", days: Int = 825, addresses: [String] = []
    ) throws
        -> SelfSignedCertificate
    {
        guard !commonName.isEmpty, commonName.utf8.count <= 64 else {
            throw CryptoError(.invalidArgument, "the common name must be 1 to 64 bytes (RFC 5280 ub-common-name)")
        }
        let others = addresses.filter { $0 != "127.0.0.1" }
        guard others.allSatisfy({ address in address.split(separator: ".").count == 4 && inet_addr(address) != INADDR_NONE }) else {
            throw CryptoError(.invalidArgument, "the certificate's addresses must be IPv4 addresses: \(addresses)")
        }
        guard (1...36_500).contains(days) else {
            throw CryptoError(.invalidArgument, "the validity must be 1 to 36500 days, not \(days)")
        }
        let key = try ES256PrivateKey.generate()
        let certificate = try LibCrypto.check(X509_new(), "X509_new failed")
        defer { X509_free(certificate) }

        try LibCrypto.check(X509_set_version(certificate, 2), "X509_set_version failed")  // 2 means v3
        try setRandomSerial(certificate)
        try LibCrypto.check(X509_gmtime_adj(X509_getm_notBefore(certificate), -3600), "setting notBefore failed")
        try LibCrypto.check(X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86_400), "setting notAfter failed")

        let name = try LibCrypto.check(X509_get_subject_name(certificate), "X509_get_subject_name failed")
        let added = Array(commonName.utf8).withUnsafeBufferPointer {
            X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8, $0.baseAddress, Int32($0.count), -1, 0)
        }
        try LibCrypto.check(added, "setting the common name failed")
        try LibCrypto.check(X509_set_issuer_name(certificate, name), "X509_set_issuer_name failed")
        try LibCrypto.check(X509_set_pubkey(certificate, key.pkey), "X509_set_pubkey failed")

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        // Order matters: the authority key identifier is copied from the subject key identifier.
        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,digitalSignature,keyCertSign"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_alt_name, (["IP:127.0.0.1"] + others.map { "IP:\($0)" } + ["DNS:localhost"]).joined(separator: ",")),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        for (nid, value) in extensions {
            let made = value.withCString { X509V3_EXT_conf_nid(nil, &context, nid, $0) }
            let ext = try LibCrypto.check(made, "building the extension \(value) failed")
            defer { X509_EXTENSION_free(ext) }
            try LibCrypto.check(X509_add_ext(certificate, ext, -1), "adding the extension \(value) failed")
        }

        guard X509_sign(certificate, key.pkey, EVP_sha256()) > 0 else { throw LibCrypto.failure("X509_sign failed") }
        let pem = try LibCrypto.writtenText("PEM_write_bio_X509") { PEM_write_bio_X509($0, certificate) }
        return SelfSignedCertificate(certificatePEM: pem, privateKeyPEM: key.pkcs8PEM)
    }

    /// Returns `cert.pem` and `key.pem` in `folder`: reused when both exist, parse, belong together,
    /// the certificate is valid now and for at least another day and names `address` (an IPv4
    /// address a server listens on, other than 127.0.0.1, that clients verify); otherwise a new
    /// pair is generated and written (`created` is true, and clients must trust the new certificate).
    ///
    /// The folder is created if needed. The key file is written with mode 0600 (via a temporary file
    /// created 0600 and renamed, so it is never readable by others), and a reused key file whose mode
    /// lets group or others read it is tightened to 0600.
    public static func loadOrCreate(in folder: URL, address: String? = nil) throws -> (certificate: URL, privateKey: URL, created: Bool) {
        let certificateURL = folder.appendingPathComponent("cert.pem")
        let keyURL = folder.appendingPathComponent("key.pem")
        let addresses = address.map { [$0] } ?? []
        if isUsablePair(certificate: certificateURL, key: keyURL, addresses: addresses) {
            try restrictToOwner(keyURL)
            return (certificateURL, keyURL, false)
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CryptoError.file(.unwritableFile, "create the folder", folder, error)
        }
        let generated = try generate(addresses: addresses)
        try write(generated.privateKeyPEM, to: keyURL, mode: 0o600)
        try write(generated.certificatePEM, to: certificateURL, mode: 0o644)
        return (certificateURL, keyURL, true)
    }

    // MARK: - Helpers

    /// 16 random bytes with the top bit cleared: positive, at most 20 octets (RFC 5280 §4.1.2.2).
    private static func setRandomSerial(_ certificate: OpaquePointer) throws(CryptoError) {
        var bytes = SecureRandom.bytes(16)
        bytes[0] = (bytes[0] & 0x7f) | 0x40  // positive and never shorter than 16 bytes
        let number = try LibCrypto.check(BN_bin2bn(bytes, Int32(bytes.count), nil), "BN_bin2bn failed")
        defer { BN_free(number) }
        try LibCrypto.check(BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)), "setting the serial failed")
    }

    /// Whether both files exist and hold a matching key and certificate valid now and tomorrow.
    private static func isUsablePair(certificate certificateURL: URL, key keyURL: URL, addresses: [String]) -> Bool {
        guard let certificateText = try? String(contentsOf: certificateURL, encoding: .utf8),
            let keyText = try? String(contentsOf: keyURL, encoding: .utf8),
            let key = try? ES256PrivateKey(pem: keyText)
        else {
            LibCrypto.clearErrors()
            return false
        }
        let usable =
            (try? LibCrypto.withReadBIO(certificateText) { bio throws(CryptoError) -> Bool in
                guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else { return false }
                defer { X509_free(certificate) }
                var tomorrow = time(nil) + 86_400
                return X509_cmp_time(X509_get0_notBefore(certificate), nil) < 0  // started
                    && X509_cmp_time(X509_get0_notAfter(certificate), &tomorrow) > 0  // valid another day
                    && X509_check_private_key(certificate, key.pkey) == 1
                    && addresses.allSatisfy { X509_check_ip_asc(certificate, $0, 0) == 1 }
            }) ?? false
        LibCrypto.clearErrors()
        return usable
    }

    /// Writes `text` to `url` with `mode` atomically: a temporary file in the same folder, created
    /// with that mode from the start, then renamed over `url`.
    private static func write(_ text: String, to url: URL, mode: mode_t) throws(CryptoError) {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(Hex.encode(SecureRandom.bytes(6))).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw CryptoError.file(.unwritableFile, "create", temporary, errno: errno) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let number = errno
                close(descriptor)
                unlink(temporary.path)
                throw CryptoError.file(.unwritableFile, "write", temporary, errno: number)
            }
            offset += written
        }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            let number = errno
            unlink(temporary.path)
            throw CryptoError.file(.unwritableFile, "write", temporary, errno: number)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let number = errno
            unlink(temporary.path)
            throw CryptoError.file(.unwritableFile, "write", url, errno: number)
        }
    }

    /// Sets mode 0600 on `url` when group or others have any access.
    private static func restrictToOwner(_ url: URL) throws(CryptoError) {
        var status = stat()
        guard stat(url.path, &status) == 0 else { throw CryptoError.file(.unreadableFile, "stat", url, errno: errno) }
        guard status.st_mode & 0o077 != 0 else { return }
        guard chmod(url.path, 0o600) == 0 else { throw CryptoError.file(.unwritableFile, "chmod 0600", url, errno: errno) }
    }
}
