import Foundation

/// Bytes through `RealtimeFeed.decode` (protobuf-c); a feed that decodes must encode, and its
/// encoding must decode to the same feed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let feed = try? RealtimeFeed.decode(bytes, source: "fuzz.pb") else { return 0 }
    let encoded = feed.encoded()
    guard let again = try? RealtimeFeed.decode(encoded) else { fatalError("a decoded feed encodes to bytes that do not decode") }
    guard again.encoded() == encoded else { fatalError("a feed's encoding changes when decoded and encoded again") }
    return 0
}
