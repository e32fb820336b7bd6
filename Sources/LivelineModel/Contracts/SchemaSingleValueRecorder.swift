/// The single-value container of a ``SchemaRecordingDecoder``: the type is a wrapper, and its field
/// type is that of the value it decodes (`Optional` probes `decodeNil`, which makes it optional).
struct SchemaSingleValueRecorder: SingleValueDecodingContainer {
    let derivation: SchemaDerivation
    let recording: SchemaRecording
    let codingPath: [any CodingKey]

    /// False, after noting that the value may be `null`.
    func decodeNil() -> Bool {
        recording.probeSingleNil()
        return false
    }

    /// Derives the wrapped value's shape, records it and hands back the placeholder.
    private func record<T: Decodable>(_ type: T.Type) throws -> T {
        let derived = try derivation.derive(T.self, at: codingPath)
        recording.recordSingleValue(derived.type, optional: derived.isOptional)
        return derived.value
    }

    func decode(_ type: Bool.Type) throws -> Bool { try record(type) }
    func decode(_ type: String.Type) throws -> String { try record(type) }
    func decode(_ type: Double.Type) throws -> Double { try record(type) }
    func decode(_ type: Float.Type) throws -> Float { try record(type) }
    func decode(_ type: Int.Type) throws -> Int { try record(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try record(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try record(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try record(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try record(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try record(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try record(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try record(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try record(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try record(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try record(type) }
}
