/// The keyed container of a ``SchemaRecordingDecoder``: every key the type decodes becomes a field,
/// in decoding order; `decodeIfPresent`, `contains` and `decodeNil` make it optional.
///
/// `contains` answers true and `decodeNil` false, so the type goes on to decode the key's value;
/// the standard library's `decodeIfPresent` is exactly those two probes and a `decode`.
struct SchemaKeyedRecorder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let derivation: SchemaDerivation
    let recording: SchemaRecording
    let codingPath: [any CodingKey]

    /// Empty: a type that lists the JSON's keys is refused (``SchemaRecording/readsAllKeys``).
    var allKeys: [Key] {
        recording.readsAllKeys = true
        return []
    }

    func contains(_ key: Key) -> Bool {
        recording.probe(key)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        recording.probe(key)
        return false
    }

    /// Derives the value's shape, records the key and hands back the placeholder.
    private func record<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        let derived = try derivation.derive(T.self, at: codingPath + [key])
        recording.record(key, derived.type, optional: derived.isOptional)
        return derived.value
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try record(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try record(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try record(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try record(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try record(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try record(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try record(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try record(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try record(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try record(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try record(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try record(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try record(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try record(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try record(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw byHand(key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw byHand(key)
    }

    func superDecoder() throws -> any Decoder {
        throw byHand(nil)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw byHand(key)
    }

    /// A nested container has no type to name its object or array by: it is refused.
    private func byHand(_ key: Key?) -> SchemaDerivationError {
        derivation.error(
            .unsupportedValue, named: recording.typeName, at: codingPath + (key.map { [$0] } ?? []),
            "\(recording.typeName) decodes a nested container by hand; expected a nested Decodable type")
    }
}
