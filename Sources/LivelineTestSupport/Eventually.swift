import Foundation

/// Polls `condition` every 10 ms until it holds or `timeout` passed; returns whether it held.
/// For waiting on background work (the dispatcher, a child process) without fixed sleeps.
public func eventually(timeout: TimeInterval = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
}
