import Foundation

/// This process's peak resident memory (Linux `/proc/self/status`, `VmHWM`), which a benchmark
/// resets before the part it measures (`/proc/self/clear_refs`, "5": Linux's proc(5)).
enum ProcessMemory {
    static func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    /// `VmHWM` in MB (0 where there is no such file).
    static func peakMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }
}
