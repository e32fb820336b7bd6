import Foundation

/// Derives the shape of `Decodable` types by running their own `init(from:)` against recording
/// decoders (`docs/contracts.md`, "Deriving a contract's shape from its Swift types").
///
/// Leaves (strings, numbers, `Bool`, `Date`, String enums) are answered here without running any
/// initializer; every other type is decoded from a ``SchemaRecordingDecoder`` that hands out
/// placeholder values and notes what the type asks for. The types being derived are kept on a
/// stack, so a type that contains itself is an error instead of an endless descent.
final class SchemaDerivation {
    /// What one decoded value turned out to be, and the placeholder handed back for it.
    struct Derived<Value> {
        var type: ContractField.FieldType
        /// The value may be `null` or absent: it was decoded as an optional or probed for nil.
        var isOptional: Bool
        var value: Value
    }

    /// The name of the type the derivation started from: the root of every key path.
    let root: String
    /// The first error made, kept in case a type's `init(from:)` swallows it (`try?`, a fallback).
    private(set) var firstError: SchemaDerivationError?
    private var stack: [ObjectIdentifier] = []

    init(root: String) {
        self.root = root
    }

    /// The shape of `type` at `path`, and a plausible value of it.
    func derive<T: Decodable>(_ type: T.Type, at path: [any CodingKey]) throws -> Derived<T> {
        if let leaf = Self.primitive(T.self) {
            return leaf
        }
        if T.self is any DerivationDictionary.Type {
            throw error(
                .unsupportedValue, T.self, at: path,
                "\(Self.name(T.self)) is a dictionary, whose keys a contract cannot list; expected a struct with fixed keys")
        }
        if let enumeration = try enumeration(T.self, at: path) {
            return enumeration
        }
        return try record(T.self, at: path)
    }

    /// The error of `code` about `type` at `path`.
    func error(_ code: SchemaDerivationError.Code, _ type: Any.Type, at path: [any CodingKey], _ message: String) -> SchemaDerivationError {
        error(code, named: Self.name(type), at: path, message)
    }

    /// The error of `code` about the type named `typeName` at `path`.
    func error(_ code: SchemaDerivationError.Code, named typeName: String, at path: [any CodingKey], _ message: String) -> SchemaDerivationError {
        let error = SchemaDerivationError(code, typeName: typeName, keyPath: keyPath(path), message)
        firstError = firstError ?? error
        return error
    }

    /// `path` as a person reads it, rooted at the derived type: `Holder.items[0].label`.
    func keyPath(_ path: [any CodingKey]) -> String {
        root
            + path.map { key in
                if let index = (key as? AnyCodingKey)?.intValue { return "[\(index)]" }
                return "." + key.stringValue
            }.joined()
    }

    /// The name of a type as contracts show it: `OpenItem`, `ContentState`, `Array<Int>`.
    static func name(_ type: Any.Type) -> String { String(describing: type) }

    /// Runs `T`'s own `init(from:)` against a recording decoder and reads what it asked for.
    private func record<T: Decodable>(_ type: T.Type, at path: [any CodingKey]) throws -> Derived<T> {
        let id = ObjectIdentifier(T.self)
        guard !stack.contains(id) else {
            throw error(
                .recursiveType, T.self, at: path,
                "\(Self.name(T.self)) contains itself; expected a finite tree of keys (leave the recursive key out of the contract)")
        }
        stack.append(id)
        defer { stack.removeLast() }
        let recording = SchemaRecording(typeName: Self.name(T.self))
        let value: T
        do {
            value = try T(from: SchemaRecordingDecoder(derivation: self, recording: recording, codingPath: path))
        } catch let error as SchemaDerivationError {
            throw error
        } catch {
            throw initThrew(T.self, recording: recording, at: path)
        }
        let shape = try recording.shape(in: self, at: path)
        return Derived(type: shape.type, isOptional: shape.isOptional, value: value)
    }

    /// Why `T.init(from:)` threw: an enum with raw values that cannot list its cases, or a
    /// decoding that refuses the placeholder of the key it read last.
    private func initThrew<T>(_ type: T.Type, recording: SchemaRecording, at path: [any CodingKey]) -> SchemaDerivationError {
        let name = Self.name(T.self)
        if T.self is any RawRepresentable.Type, recording.readSingleValue {
            return error(
                .enumNotCaseIterable, T.self, at: path,
                "\(name) is an enum without CaseIterable, so its raw values cannot be listed; add CaseIterable to its declaration")
        }
        let expected =
            "expected a decoding that accepts any value of each key's type (the derivation reads \"\", 0, false, "
            + "a date, an enum's first case, one-element arrays)"
        guard let key = recording.lastKey else {
            return error(.initThrew, T.self, at: path, "\(name).init(from:) threw before reading a key; \(expected)")
        }
        return error(.initThrew, T.self, at: path + [key], "\(name).init(from:) threw on the placeholder value of '\(key.stringValue)'; \(expected)")
    }
}
