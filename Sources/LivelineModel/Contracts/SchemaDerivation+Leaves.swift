import Foundation

extension SchemaDerivation {
    /// A primitive's field type and placeholder, or nil when `T` is none; answered without running
    /// `T`'s initializer (a `Date` is a number of seconds since 2001 to a default `JSONDecoder`).
    ///
    /// Every integer width is `.int`, `Float` and `Decimal` are `.double`; `URL` and `Data` are
    /// strings, as a default `JSONDecoder` reads them (`Data` as Base64).
    static func primitive<T>(_ type: T.Type) -> Derived<T>? {
        func leaf(_ fieldType: ContractField.FieldType, _ value: Any) -> Derived<T>? {
            (value as? T).map { Derived(type: fieldType, isOptional: false, value: $0) }
        }
        switch T.self {
        case is String.Type: return leaf(.string, "")
        case is Bool.Type: return leaf(.bool, false)
        case is Date.Type: return leaf(.date, Date(timeIntervalSinceReferenceDate: 0))
        case is Decimal.Type: return leaf(.double, Decimal(0))
        case is URL.Type: return leaf(.string, URL(fileURLWithPath: "/"))
        case is Data.Type: return leaf(.string, Data())
        case let integer as any FixedWidthInteger.Type: return leaf(.int, integer.zero)
        case let floating as any BinaryFloatingPoint.Type: return leaf(.double, floating.zero)
        default: return nil
        }
    }

    /// A `CaseIterable` enum's name and String raw values, in declaration order, with its first case
    /// as the placeholder; nil when `T` is not `CaseIterable`.
    ///
    /// The cast is to `any CaseIterable.Type`, and each case to `any RawRepresentable` whose raw value
    /// must be a `String`: an app's `enum Phase: String, Codable, CaseIterable` needs no protocol of
    /// ours, and an enum with other raw values is named in the error.
    func enumeration<T>(_ type: T.Type, at path: [any CodingKey]) throws -> Derived<T>? {
        guard let iterable = T.self as? any CaseIterable.Type else { return nil }
        let cases = Self.allCases(of: iterable)
        let name = Self.name(T.self)
        guard let first = cases.first as? T else {
            throw error(.unsupportedValue, T.self, at: path, "\(name) has no cases; expected an enum with String raw values")
        }
        let raws = cases.map { ($0 as? any RawRepresentable)?.rawValue }
        let strings = raws.compactMap { $0 as? String }
        guard strings.count == cases.count else {
            let what = raws.first.flatMap { $0 }.map { "\(Swift.type(of: $0)) raw values" } ?? "no raw values"
            throw error(.unsupportedValue, T.self, at: path, "\(name) has \(what); expected an enum with String raw values")
        }
        return Derived(type: .enumeration(name: name, cases: strings), isOptional: false, value: first)
    }

    /// The cases of `E`, each as `Any`.
    private static func allCases<E: CaseIterable>(of type: E.Type) -> [Any] {
        E.allCases.map { $0 as Any }
    }
}
