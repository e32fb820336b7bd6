/// The unkeyed container of a ``SchemaRecordingDecoder``: an array of one element, whose type is the
/// array's element type.
///
/// `isAtEnd` turns true after the first element, so an array's decoding loop runs once; a type that
/// decodes more elements anyway gets them, and they must all be of the first one's type.
struct SchemaUnkeyedRecorder: UnkeyedDecodingContainer {
    let derivation: SchemaDerivation
    let recording: SchemaRecording
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(derivation: SchemaDerivation, recording: SchemaRecording, codingPath: [any CodingKey]) {
        self.derivation = derivation
        self.recording = recording
        self.codingPath = codingPath
    }

    var count: Int? { 1 }
    var isAtEnd: Bool { currentIndex >= 1 }

    /// False, after noting that the elements may be `null` (which a contract cannot describe).
    mutating func decodeNil() throws -> Bool {
        recording.probeElementNil()
        return false
    }

    /// Derives the element's shape, records it and hands back the placeholder.
    private mutating func record<T: Decodable>(_ type: T.Type) throws -> T {
        let derived = try derivation.derive(T.self, at: codingPath + [AnyCodingKey(index: currentIndex)])
        recording.recordElement(derived.type, optional: derived.isOptional)
        currentIndex += 1
        return derived.value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try record(type) }
    mutating func decode(_ type: String.Type) throws -> String { try record(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try record(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try record(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try record(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try record(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try record(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try record(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try record(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try record(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try record(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try record(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try record(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try record(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try record(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw byHand()
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw byHand()
    }

    mutating func superDecoder() throws -> any Decoder {
        throw byHand()
    }

    /// A nested container has no type to name its object or array by: it is refused.
    private func byHand() -> SchemaDerivationError {
        derivation.error(
            .unsupportedValue, named: recording.typeName, at: codingPath + [AnyCodingKey(index: currentIndex)],
            "\(recording.typeName) decodes a nested container by hand; expected a nested Decodable type")
    }
}
