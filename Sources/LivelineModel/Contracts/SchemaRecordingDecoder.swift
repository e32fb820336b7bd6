/// A `Decoder` that holds no JSON: it hands a type's `init(from:)` placeholder values and notes in
/// a ``SchemaRecording`` what the type asks for (`docs/contracts.md`, "Deriving a contract's shape
/// from its Swift types").
///
/// Nested `Decodable` values go back to the ``SchemaDerivation``, which answers leaves itself and
/// gives every other type a recording decoder of its own.
struct SchemaRecordingDecoder: Decoder {
    let derivation: SchemaDerivation
    let recording: SchemaRecording
    let codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        recording.beginKeyed()
        return KeyedDecodingContainer(SchemaKeyedRecorder<Key>(derivation: derivation, recording: recording, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        recording.beginUnkeyed()
        return SchemaUnkeyedRecorder(derivation: derivation, recording: recording, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        recording.beginSingleValue()
        return SchemaSingleValueRecorder(derivation: derivation, recording: recording, codingPath: codingPath)
    }
}
