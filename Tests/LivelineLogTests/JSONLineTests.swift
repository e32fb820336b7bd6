import Foundation
import LivelineLog
import Testing

struct JSONLineTests {
    @Test func escapesEverythingJSONRequires() throws {
        var line = JSONLine()
        line.add("path", "/a\"b\\c\nd\u{01}é")
        line.add("status", 200)
        line.add("ok", true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.string.utf8)) as? [String: Any])
        #expect(object["path"] as? String == "/a\"b\\c\nd\u{01}é")
        #expect(object["status"] as? Int == 200)
        #expect(object["ok"] as? Bool == true)
    }

    @Test func numbersAndEveryControlCharacterComeOutAsJSON() throws {
        var line = JSONLine()
        line.add("zero", 0)
        line.add("negative", -4071)
        line.add("min", Int.min)
        line.add("max", Int.max)
        line.add("ms", 0.125)
        line.add("nan", Double.nan)
        line.add("off", false)
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        line.add(controls, "ä\u{1F}z")
        #expect(
            line.string.hasPrefix(
                #"{"zero":0,"negative":-4071,"min":-9223372036854775808,"max":9223372036854775807,"ms":0.125,"nan":null,"off":false,"\u0000\u0001"#))
        #expect(line.string.hasSuffix(#"\u001e\u001f":"ä\u001fz"}"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.string.utf8)) as? [String: Any])
        #expect(object["min"] as? Int == Int.min)
        #expect(object[controls] as? String == "ä\u{1F}z")
        #expect(object.count == 8)
    }

    @Test func aSinkWritesTheLineAndANewlineToItsDescriptorAndKeepsItInMemory() throws {
        var line = JSONLine()
        line.add("event", "x")
        line.add("path", "/a\"b")
        let pipe = Pipe()
        let sink = LogSink(descriptor: pipe.fileHandleForWriting.fileDescriptor)
        sink.write(line)
        sink.write(line)
        sink.flush()
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(written == line.string + "\n" + line.string + "\n")
        #expect(line.string == #"{"event":"x","path":"/a\"b"}"#)
        #expect(!sink.discards)

        let memory = LogSink.inMemory()
        memory.write(line)
        #expect(memory.lines == [line.string])
        #expect(!memory.discards)
        #expect(LogSink.discarding().discards)
    }

    @Test func theTimerWritesALineOutWithoutAFlush() throws {
        var line = JSONLine()
        line.add("event", "timed")
        let pipe = Pipe()
        let sink = LogSink(descriptor: pipe.fileHandleForWriting.fileDescriptor, interval: .milliseconds(20))
        sink.write(line)
        var ready = pollfd(fd: pipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 10_000) == 1, "no line within 10 s")
        let written = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        #expect(written == line.string + "\n")
        withExtendedLifetime(sink) {}
    }
}
