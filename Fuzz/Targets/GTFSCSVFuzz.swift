import Foundation

/// A GTFS static feed through `GTFSReader`: the input is the feed's files, one after another,
/// separated by a NUL byte, in the order of `fuzzFileNames`; they are written to a folder, which
/// the reader reads (libcsv for every file) and checks. A file that is no CSV throws.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let files = bytes.split(separator: 0, maxSplits: fuzzFileNames.count - 1, omittingEmptySubsequences: false)
    // The first file straight through libcsv, as a table of any name.
    if let first = files.first { _ = try? CSVTable(Array(first), file: "fuzz.txt") }
    let fm = FileManager.default
    for name in (try? fm.contentsOfDirectory(atPath: fuzzFolder.path)) ?? [] {
        try? fm.removeItem(at: fuzzFolder.appendingPathComponent(name))
    }
    for (name, contents) in zip(fuzzFileNames, files) {
        _ = fm.createFile(atPath: fuzzFolder.appendingPathComponent(name).path, contents: Data(contents))
    }
    _ = try? GTFSReader.read(fuzzFolder, today: nil)
    return 0
}

let fuzzFileNames = ["agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt", "calendar.txt", "calendar_dates.txt"]

let fuzzFolder: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-fuzz-gtfs-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()
