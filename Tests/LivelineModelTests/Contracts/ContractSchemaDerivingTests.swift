import Foundation
import LivelineModel
import Testing

/// A schema derived from Swift types reads what their own `init(from:)` decodes, rule by rule, and
/// refuses what no contract can describe with an error naming the type, the key path and what was
/// expected (`docs/contracts.md`, "Deriving a contract's shape from its Swift types").
@Suite struct ContractSchemaDerivingTests {
    struct Empty: Decodable {}

    /// The attributes derived from `T` (with an empty content state).
    static func fields<T: Decodable>(_ type: T.Type) throws -> [ContractField] {
        try ContractSchema.derived(attributes: T.self, contentState: Empty.self).attributes
    }

    /// The error deriving `T` ends with, or nil when it derives.
    static func failure<T: Decodable>(_ type: T.Type) -> SchemaDerivationError? {
        do {
            _ = try ContractSchema.derived(attributes: T.self, contentState: Empty.self)
            return nil
        } catch {
            return error
        }
    }

    struct Parcel: Decodable {
        var code: String
        var courier: String?
        var stops: Int
    }

    @Test func anOptionalIsOptionalAndTheRestRequired() throws {
        #expect(
            try Self.fields(Parcel.self) == [
                ContractField("code", .string), ContractField("courier", .string, optional: true), ContractField("stops", .int),
            ])
    }

    /// A hand-written `init(from:)` that probes for `null` before decoding accepts `null`.
    struct Probed: Decodable {
        enum CodingKeys: String, CodingKey { case note, count }
        var note: String
        var count: Int

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            note = try c.decodeNil(forKey: .note) ? "-" : c.decode(String.self, forKey: .note)
            count = try c.decode(Int.self, forKey: .count)
        }
    }

    @Test func aDecodeNilProbeMakesTheKeyOptional() throws {
        #expect(try Self.fields(Probed.self) == [ContractField("note", .string, optional: true), ContractField("count", .int)])
    }

    /// Decodes `later` before `earlier`, against the order of its `CodingKeys`.
    struct Reordered: Decodable {
        enum CodingKeys: String, CodingKey { case earlier, later }
        var earlier: Bool
        var later: Double

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            later = try c.decode(Double.self, forKey: .later)
            earlier = try c.decode(Bool.self, forKey: .earlier)
        }
    }

    @Test func keysComeInTheOrderTheTypeDecodesThem() throws {
        #expect(try Self.fields(Reordered.self).map(\.key) == ["later", "earlier"])
    }

    struct Widths: Decodable {
        var small: Int8
        var unsigned: UInt16
        var wide: Int64
        var single: Float
        var whole: Double
        var flag: Bool
    }

    @Test func otherIntegerWidthsAreIntAndFloatIsDouble() throws {
        #expect(try Self.fields(Widths.self).map(\.type) == [.int, .int, .int, .double, .double, .bool])
    }

    struct Departure: Decodable {
        var at: Date
        var revised: Date?
    }

    @Test func aDateIsADateAndNeverANumber() throws {
        #expect(try Self.fields(Departure.self) == [ContractField("at", .date), ContractField("revised", .date, optional: true)])
    }

    struct Stop: Decodable {
        var name: String
        var platform: Int?
    }

    struct Leg: Decodable {
        var from: Stop
        var to: Stop?
    }

    @Test func aNestedStructIsAnObjectNamedAfterItsType() throws {
        let stop = ContractField.FieldType.object(
            name: "Stop", fields: [ContractField("name", .string), ContractField("platform", .int, optional: true)])
        #expect(try Self.fields(Leg.self) == [ContractField("from", stop), ContractField("to", stop, optional: true)])
    }

    struct Route: Decodable {
        var stops: [Stop]
        var tags: [String]
        var grid: [[Int]]
    }

    @Test func anArrayOfStructsIsAnArrayOfObjects() throws {
        let stop = ContractField.FieldType.object(
            name: "Stop", fields: [ContractField("name", .string), ContractField("platform", .int, optional: true)])
        #expect(
            try Self.fields(Route.self) == [
                ContractField("stops", .array(stop)), ContractField("tags", .array(.string)), ContractField("grid", .array(.array(.int))),
            ])
    }

    enum Phase: String, Decodable, CaseIterable {
        case waiting
        case riding = "on-board"
    }

    struct Trip: Decodable {
        var phase: Phase
        var previous: Phase?
    }

    @Test func aCaseIterableStringEnumListsItsRawValues() throws {
        let phase = ContractField.FieldType.enumeration(name: "Phase", cases: ["waiting", "on-board"])
        #expect(try Self.fields(Trip.self) == [ContractField("phase", phase), ContractField("previous", phase, optional: true)])
    }

    /// A type whose `init(from:)` reads a single value is that value (here a checked string).
    struct Tint: Decodable {
        var name: String

        init(from decoder: any Decoder) throws {
            name = try decoder.singleValueContainer().decode(String.self)
        }
    }

    struct Badge: Decodable {
        var tint: Tint
    }

    @Test func aSingleValueWrapperIsTheValueItWraps() throws {
        #expect(try Self.fields(Badge.self) == [ContractField("tint", .string)])
    }

    enum Mood: String, Decodable {
        case calm, busy
    }

    struct Diary: Decodable {
        var mood: Mood
    }

    @Test func anEnumWithoutCaseIterableIsRefusedNamingWhatToAdd() {
        let error = Self.failure(Diary.self)
        #expect(error?.code == .enumNotCaseIterable)
        #expect(error?.typeName == "Mood")
        #expect(
            error?.description
                == "Diary.mood: Mood is an enum without CaseIterable, so its raw values cannot be listed; add CaseIterable to its declaration")
    }

    enum Level: Int, Decodable, CaseIterable {
        case low = 1, high
    }

    struct Meter: Decodable {
        var level: Level
    }

    @Test func anEnumWithIntRawValuesIsRefused() {
        let error = Self.failure(Meter.self)
        #expect(error?.code == .unsupportedValue)
        #expect(error?.description == "Meter.level: Level has Int raw values; expected an enum with String raw values")
    }

    struct Node: Decodable {
        var label: String
        var children: [Node]
    }

    @Test func aRecursiveTypeIsRefused() {
        let error = Self.failure(Node.self)
        #expect(error?.code == .recursiveType)
        #expect(error?.typeName == "Node")
        #expect(
            error?.description
                == "Node.children[0]: Node contains itself; expected a finite tree of keys (leave the recursive key out of the contract)")
    }

    struct Scores: Decodable {
        var round: Int
        var byPlayer: [String: Int]
    }

    @Test func aDictionaryIsRefused() {
        let error = Self.failure(Scores.self)
        #expect(error?.code == .unsupportedValue)
        #expect(
            error?.description
                == "Scores.byPlayer: Dictionary<String, Int> is a dictionary, whose keys a contract cannot list; expected a struct with fixed keys")
    }

    struct Sparse: Decodable {
        var values: [Int?]
    }

    @Test func anArrayOfOptionalsIsRefused() {
        let error = Self.failure(Sparse.self)
        #expect(error?.code == .unsupportedValue)
        #expect(
            error?.description == "Sparse.values: Array<Optional<Int>> holds optional elements; expected an array of non-optional values")
    }

    /// Validates its code, so the derivation's empty placeholder string makes it throw.
    struct Ticket: Decodable {
        enum CodingKeys: String, CodingKey { case seat, code }
        var seat: Int
        var code: String

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            seat = try c.decode(Int.self, forKey: .seat)
            code = try c.decode(String.self, forKey: .code)
            guard !code.isEmpty else { throw DecodingError.dataCorruptedError(forKey: .code, in: c, debugDescription: "empty code") }
        }
    }

    struct Booking: Decodable {
        var ticket: Ticket
    }

    @Test func aCustomInitThatRejectsThePlaceholderIsNamedWithItsKey() {
        let error = Self.failure(Booking.self)
        #expect(error?.code == .initThrew)
        #expect(error?.typeName == "Ticket")
        #expect(
            error?.description
                == "Booking.ticket.code: Ticket.init(from:) threw on the placeholder value of 'code'; expected a decoding that accepts any "
                + "value of each key's type (the derivation reads \"\", 0, false, a date, an enum's first case, one-element arrays)")
    }

    /// Swallows the error of its enum and falls back to a default: the error is reported anyway.
    struct Lenient: Decodable {
        enum CodingKeys: String, CodingKey { case mood }
        var mood: Mood

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            mood = (try? c.decode(Mood.self, forKey: .mood)) ?? .calm
        }
    }

    @Test func anErrorTheTypeSwallowsIsStillReported() {
        #expect(Self.failure(Lenient.self)?.description.hasPrefix("Lenient.mood: Mood is an enum without CaseIterable") == true)
    }

    @Test func contentStateThatIsNoObjectIsRefused() {
        #expect(throws: SchemaDerivationError.self) { try ContractSchema.derived(attributes: Empty.self, contentState: [Int].self) }
        do {
            _ = try ContractSchema.derived(attributes: Empty.self, contentState: Phase.self)
            Issue.record("an enum derived as a content state")
        } catch {
            #expect(error.code == .notAnObject)
            #expect(error.description == "Phase: Phase decodes from one of waiting, on-board; expected a struct decoded from a JSON object")
        }
    }

    @Test func theShapeLeavesOutSinceAndSummaryAtEveryDepth() {
        let written = ContractSchema(
            attributes: [
                ContractField("stops", .array(.object(name: "Stop", fields: [ContractField("name", .string, since: 2, "its name")])), "stops")
            ],
            contentState: [ContractField("note", .string, optional: true, since: 3, "a note")])
        let bare = ContractSchema(
            attributes: [ContractField("stops", .array(.object(name: "Stop", fields: [ContractField("name", .string)])))],
            contentState: [ContractField("note", .string, optional: true)])
        #expect(written.shape == bare)
        #expect(written != bare)
    }
}
