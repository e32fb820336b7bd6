internal import CCSV
import Foundation

/// One CSV file of a GTFS feed, parsed by libcsv (RFC 4180: quoted fields, quotes doubled inside
/// them, CR, LF or CRLF line ends); a UTF-8 byte order mark at the start is dropped. Columns are
/// found by their header name (GTFS allows any order, and columns it does not know).
struct CSVTable: Sendable {
    /// The header's names, trimmed.
    let header: [String]
    /// The data rows' fields, row after row (``rowStarts`` says where each begins).
    private let cells: [String]
    private let rowStarts: [Int]
    /// The line of the file each data row starts on (the header is line 1).
    let lines: [Int]

    var rowCount: Int { rowStarts.count }

    /// The column `name`'s index, nil when the file has no such column.
    func column(_ name: String) -> Int? { header.firstIndex(of: name) }

    /// Row `row`'s field in column `column`; "" when the row is shorter.
    func value(_ row: Int, _ column: Int) -> String {
        let start = rowStarts[row]
        let end = row + 1 < rowStarts.count ? rowStarts[row + 1] : cells.count
        return start + column < end ? cells[start + column] : ""
    }

    /// How many fields row `row` has.
    func fieldCount(_ row: Int) -> Int {
        (row + 1 < rowStarts.count ? rowStarts[row + 1] : cells.count) - rowStarts[row]
    }

    /// Parses `bytes`; throws with the libcsv's reason (and about where) when it is no CSV.
    init(_ bytes: [UInt8], file: String) throws {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let collector = Collector()
        var parser = csv_parser()
        guard csv_init(&parser, UInt8(CSV_STRICT | CSV_STRICT_FINI)) == 0 else { throw GTFSError("\(file): libcsv could not start") }
        defer { csv_free(&parser) }
        let context = Unmanaged.passUnretained(collector).toOpaque()
        let parsed = body.withUnsafeBytes { raw in
            csv_parse(&parser, raw.baseAddress, raw.count, Collector.field, Collector.row, context)
        }
        guard parsed == body.count, csv_fini(&parser, Collector.field, Collector.row, context) == 0 else {
            let reason = String(cString: csv_strerror(csv_error(&parser)))
            throw GTFSError("\(file) is no valid CSV near line \(collector.line): \(reason)")
        }
        guard let first = collector.rows.first else {
            header = []
            cells = []
            rowStarts = []
            lines = []
            return
        }
        header = first.map { $0.trimmingCharacters(in: .whitespaces) }
        var cells: [String] = []
        var starts: [Int] = []
        for row in collector.rows.dropFirst() {
            starts.append(cells.count)
            cells += row
        }
        self.cells = cells
        rowStarts = starts
        lines = Array(collector.rowLines.dropFirst())
    }

    /// What libcsv's callbacks collect (C calls them during `csv_parse`, on this thread).
    private final class Collector {
        var rows: [[String]] = []
        var rowLines: [Int] = []
        var current: [String] = []
        /// The line the next row starts on.
        var line = 1
        var newlinesInRow = 0

        static let field: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Void = { data, count, context in
            guard let context else { return }
            let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
            guard let data, count > 0 else {
                collector.current.append("")
                return
            }
            let bytes = UnsafeRawBufferPointer(start: data, count: count)
            collector.newlinesInRow += bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            collector.current.append(String(decoding: bytes, as: UTF8.self))
        }

        static let row: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void = { _, context in
            guard let context else { return }
            let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
            collector.rows.append(collector.current)
            collector.rowLines.append(collector.line)
            collector.line += 1 + collector.newlinesInRow
            collector.current = []
            collector.newlinesInRow = 0
        }
    }
}

/// A feed that cannot be read at all (not a zip or folder, a damaged archive, a file that is no CSV).
public struct GTFSError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
