import Foundation
import LivelineLog
import Testing

struct LoggerTests {
    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aLineHasTheTimeTheLevelTheEventAndItsFieldsInOrder() throws {
        let sink = LogSink.inMemory()
        let logger = Logger(sink: sink, level: .debug, clock: { Date(timeIntervalSince1970: 1_712_345_678.25) })
        logger.warning("deadLetter", [("context.key", "trip:1"), ("outbox.id", 7), ("apns.status", 410), ("retried", false)])
        let line = try #require(sink.lines.first)
        #expect(line.hasPrefix(#"{"ts":1712345678.25,"level":"warning","event":"deadLetter","context.key":"trip:1","outbox.id":7"#))
        let object = try Self.object(line)
        #expect(object["apns.status"] as? Int == 410)
        #expect(object["retried"] as? Bool == false)
    }

    @Test func linesBelowTheLevelAreNotWritten() {
        let sink = LogSink.inMemory()
        let logger = Logger(sink: sink, level: .warning)
        logger.debug("pushAnswered")
        logger.info("channelCreated")
        logger.warning("deadLetter")
        logger.error("recordingAbandoned")
        #expect(sink.lines.count == 2)
        #expect(sink.lines.allSatisfy { !$0.contains("pushAnswered") && !$0.contains("channelCreated") })
        #expect(!Logger.discarding.isEnabled(.warning) && Logger.discarding.isEnabled(.error))
    }

    @Test func levelsAreOrderedAndSpelledAsConfigured() {
        #expect(LogLevel.allCases.sorted() == [.debug, .info, .warning, .error])
        #expect(LogLevel.allCases.map(\.rawValue) == ["debug", "info", "warning", "error"])
        #expect(LogLevel(rawValue: "warn") == nil)
    }

    @Test func aDescriptorSinkWritesWholeLinesOnFlush() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString).jsonl")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        let logger = Logger(sink: LogSink(descriptor: handle.fileDescriptor), level: .info)
        logger.info("channelCreated", [("channel.id", "dHN0LTE=")])
        logger.error("recordingAbandoned", [("message", "line one\nline two")])
        logger.flush()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(try Self.object(String(lines[1]))["message"] as? String == "line one\nline two")
    }
}
