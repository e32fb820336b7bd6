import Foundation

extension CryptoError {
    /// An error about a file: names the path and the system's reason, never the file's content.
    static func file(_ code: Code, _ action: String, _ url: URL, _ error: any Error) -> CryptoError {
        CryptoError(code, "cannot \(action) \(url.path): \(reason(error))")
    }

    /// An error about a file from a failed system call's `errno`.
    static func file(_ code: Code, _ action: String, _ url: URL, errno number: Int32) -> CryptoError {
        CryptoError(code, "cannot \(action) \(url.path): \(String(cString: strerror(number)))")
    }

    /// `strerror` for POSIX-backed Foundation errors, else the localized description.
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError {
            return String(cString: strerror(ENOENT))
        }
        return nsError.localizedDescription
    }
}
