/// A connection of one of the sandbox's HTTP/2 ports (each server numbers its own connections).
struct ConnectionKey: Sendable, Hashable {
    var port: SandboxPort
    var id: UInt64
}
