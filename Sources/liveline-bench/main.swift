import Foundation
import LivelineBench

// liveline-bench push [N] [WINDOW]: see PushBenchmark. Not part of the product.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "push" else {
    FileHandle.standardError.write(Data("usage: liveline-bench push [COUNT (default 100000)] [WINDOW (default 100)]\n".utf8))
    exit(2)
}
let count = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let window = arguments.count > 2 ? Int(arguments[2]) ?? 100 : 100
let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
let done = DispatchSemaphore(value: 0)
Task.detached {
    do {
        _ = try await PushBenchmark.run(count: count, window: window, repositoryRoot: root) { print($0) }
    } catch {
        print("benchmark failed: \(error)")
    }
    done.signal()
}
done.wait()
