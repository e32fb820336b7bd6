import Foundation

/// Raw JSON through the payload check, as `liveline check` and the server see it: with no
/// contract (the `attributes-type` decides), then as each known contract, on both destinations.
/// Bad input is a report full of problems, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let json = Data(bytes: start, count: count)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    for destination in [PushDestination.device, .broadcast] {
        let check = PayloadCheck(destination: destination, now: now)
        _ = check.check(json: json, typeName: nil).text(file: "fuzz.json", destination: destination)
        for name in ContractRegistry.known.names {
            _ = check.check(json: json, typeName: name)
        }
    }
    return 0
}
