internal import CCurl
import Foundation
import LivelinePushWire

/// One push in flight: its `curl_easy` handle and what libcurl's callbacks collect. Used only on
/// the client's thread once started (hence `@unchecked Sendable`: it crosses over once, queued).
final class Transfer: @unchecked Sendable {
    let request: WebPushRequest
    /// The push service's origin: its connections are shared.
    var origin: String { request.origin }
    private let completion: @Sendable (WebPushResponse) -> Void
    private var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl's words for a failure (it writes there until the handle is freed).
    private let errorBuffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return buffer
    }()
    private var responseBody: [UInt8] = []
    private var retryAfter: TimeInterval?
    private var location: String?
    /// When the push was handed over: its time (the client's timeout) counts from here, waiting
    /// for a free connection included.
    private let queued = ContinuousClock.now
    private var done = false
    /// The push service answered over HTTP/2 (its origin multiplexes).
    var spokeHTTP2 = false
    /// Loopback addresses may be connected to (``PushServiceAddress``).
    private var allowLoopback = false
    /// Why the address libcurl was about to connect to was refused, if it was.
    private var refusedAddress: String?

    /// The most of an answer's body kept (a push service's reason is short).
    static let bodyLimit = 512

    init(request: WebPushRequest, completion: @escaping @Sendable (WebPushResponse) -> Void) {
        self.request = request
        self.completion = completion
    }

    deinit {
        if let easy { curl_easy_cleanup(easy) }
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// The easy handle of this push, ready to be added to the multi handle, with what is left of
    /// `timeout` since it was handed over; throws, not sending it, when almost nothing is left.
    /// `reusing`: a handle an earlier push gave back (``giveBackHandle()``), else a new one.
    func start(
        timeout: TimeInterval, caFile: String?, allowInsecure: Bool, reusing handle: UnsafeMutableRawPointer? = nil
    ) throws -> UnsafeMutableRawPointer {
        guard let easy = handle ?? curl_easy_init() else {
            throw WebPushError("libcurl could not make a request handle (curl_easy_init)")
        }
        self.easy = easy  // freed with the transfer unless given back
        let waited = ContinuousClock.now - queued
        let left = timeout - (Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18)
        guard left >= 0.1 else {
            throw WebPushError("not sent: no place among the pushes in flight to this push service came free within \(timeout) s")
        }
        allowLoopback = allowInsecure
        for header in request.headers {
            guard let list = curl_slist_append(headerList, "\(header.name): \(header.value)") else {
                throw WebPushError("libcurl could not add the \(header.name) header")
            }
            headerList = list
        }
        // No "Expect: 100-continue" round trip before the body.
        if let list = curl_slist_append(headerList, "Expect:") { headerList = list }
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_URL, request.endpoint)
        try set(CURLOPT_PROTOCOLS_STR, allowInsecure ? "http,https" : "https")
        try set(CURLOPT_POST, 1)
        try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(request.body.count))
        try request.body.withUnsafeBytes { bytes in
            // Copied by libcurl: the handle outlives this call.
            try check(ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress)), "the body")
        }
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList)), "the headers")
        try check(ccurl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, Transfer.collectBody), "the body callback")
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context), "the body callback")
        try check(ccurl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION, Transfer.collectHeader), "the header callback")
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context), "the header callback")
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context), "the transfer")
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer), "the error buffer")
        try check(ccurl_easy_setopt_opensocket(easy, Transfer.openSocket), "the address check")
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context), "the address check")
        try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_TIMEOUT_MS, Int(left * 1000))
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int(min(left, 5) * 1000))
        try set(CURLOPT_USERAGENT, "liveline")
        if let caFile { try set(CURLOPT_CAINFO, caFile) }
        return easy
    }

    /// The easy handle, reset to libcurl's defaults, for the next push (making one and freeing it
    /// for every push cost more than resetting it); this transfer no longer owns it. Only after
    /// ``finish(result:)`` (or a start that failed), with the handle out of the multi handle.
    func giveBackHandle() -> UnsafeMutableRawPointer? {
        guard let handle = easy else { return nil }
        curl_easy_reset(handle)  // forgets this transfer's headers and callbacks before they are freed
        easy = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        return handle
    }

    /// libcurl finished the transfer with `result`.
    func finish(result: CURLcode) {
        guard let easy else { return finish(failure: "the transfer never started") }
        guard result == CURLE_OK else {
            if let refusedAddress {
                return finish(failure: "not sent: the push service's host resolved to \(refusedAddress); push services are on the internet")
            }
            let detail = String(cString: errorBuffer)
            return finish(failure: detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail)
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        spokeHTTP2 = version == Int(CURL_HTTP_VERSION_2_0)
        respond(
            WebPushResponse(
                status: status, retryAfter: retryAfter, location: location,
                body: String(decoding: responseBody.prefix(Self.bodyLimit), as: UTF8.self), latency: .now - queued))
    }

    /// The push got no answer: `reason`.
    func finish(failure reason: String) {
        respond(WebPushResponse(status: 0, transportError: reason, latency: .now - queued))
    }

    private func respond(_ response: WebPushResponse) {
        guard !done else { return }
        done = true
        completion(response)
    }

    // MARK: libcurl's callbacks

    private static let collectBody: ccurl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        if transfer.responseBody.count < bodyLimit {
            data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                transfer.responseBody.append(
                    contentsOf: UnsafeBufferPointer(start: bytes, count: min(length, bodyLimit - transfer.responseBody.count)))
            }
        }
        return length
    }

    /// Opens the socket libcurl asked for, unless its address is one a push service cannot have
    /// (``PushServiceAddress``): nothing is sent there, not even a connection attempt.
    private static let openSocket: ccurl_opensocket_callback = { context, _, address in
        guard let context, let address else { return CCURL_SOCKET_BAD }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = Int(buffer.withUnsafeMutableBufferPointer { ccurl_address_bytes(address, $0.baseAddress) })
        let bytes = Array(buffer.prefix(count))
        if let why = PushServiceAddress.refusal(bytes, allowLoopback: transfer.allowLoopback) {
            transfer.refusedAddress = count == 0 ? why : "\(PushServiceAddress.text(bytes)), \(why)"
            return CCURL_SOCKET_BAD
        }
        return ccurl_open_socket(address)
    }

    private static let collectHeader: ccurl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        // Only a status line, Retry-After and Location matter: other lines are passed over
        // without building a string.
        switch bytes.first {
        case UInt8(ascii: "H"), UInt8(ascii: "r"), UInt8(ascii: "R"), UInt8(ascii: "l"), UInt8(ascii: "L"): break
        default: return length
        }
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A new response (after a 1xx): what an earlier one said does not count.
            transfer.retryAfter = nil
            transfer.location = nil
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "retry-after": transfer.retryAfter = RetryAfter.seconds(value, now: Date())
            case "location": transfer.location = value
            default: break
            }
        }
        return length
    }

    // MARK: Options

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(ccurl_easy_setopt_long(easy, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, offset value: curl_off_t) throws {
        try check(ccurl_easy_setopt_offset(easy, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, _ value: String) throws {
        try check(ccurl_easy_setopt_string(easy, option, value), "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws {
        guard code == CURLE_OK else { throw WebPushError("libcurl refused \(what): \(String(cString: curl_easy_strerror(code)))") }
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
enum RetryAfter {
    /// The longest wait taken from a push service: a longer one is read as this.
    static let maximum: TimeInterval = 3600

    static func seconds(_ value: String, now: Date) -> TimeInterval? {
        if let seconds = Int(value), seconds >= 0 { return min(TimeInterval(seconds), maximum) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maximum)
    }
}
