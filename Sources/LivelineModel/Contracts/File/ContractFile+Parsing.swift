import Foundation

extension ContractFile {
    /// The members of a file's top object, in the order ``json`` writes them.
    static let members = [
        "format", "type", "version", "fingerprint", "attributes", "contentState", "types", "example", "lifecycle", "card",
    ]

    /// Reads and checks a contract file (`docs/contracts.md`, "Contract files"): its size, its
    /// JSON, every member and type, then the rules of ``validate()``, and that a `fingerprint` it
    /// carries is the one its schema gives. The first problem is thrown, with its place in the file.
    public static func parse(_ data: Data) throws(ContractFileError) -> ContractFile {
        guard data.count <= maximumSize else {
            throw ContractFileError(.tooLarge, at: "", "the file is \(data.count) bytes; a contract file may have at most \(maximumSize) bytes")
        }
        let document: JSONValue
        do {
            document = try JSONValue(json: data)
        } catch {
            throw ContractFileError(.notJSON, at: "", "the file is not JSON (\(reason(error))); expected a JSON object, a contract file (\(format))")
        }
        guard document.objectValue != nil else {
            throw ContractFileError(
                .notJSON, at: "", "the file is \(document.kindDescription); expected a JSON object, a contract file (\(format))")
        }
        let top = try ContractFileObject(document, at: "", expected: "a JSON object")
        try checkFormat(top)
        try top.check(allowed: members)
        let typeName = try top.required(
            top.string("type", expected: "a string, the Swift type name"), "type",
            expected: "the Swift type name, e.g. \"DeliveryActivityAttributes\"")
        let version = try top.required(top.int("version", expected: "a whole number"), "version", expected: "the contract's version, 1 or more")
        let carried = try top.string("fingerprint", expected: "a string of 16 hexadecimal digits")
        var parser = try ContractFileParser(types: top.value("types"))
        let attributes = try parser.fields(
            top.required(top.array("attributes", expected: "an array of keys"), "attributes", expected: "an array of keys, [] for none"),
            at: "attributes")
        let contentState = try parser.fields(
            top.required(top.array("contentState", expected: "an array of keys"), "contentState", expected: "an array of keys"),
            at: "contentState")
        if let unused = parser.unused.first {
            throw ContractFileError(.unusedType, at: "types.\(unused)", "no key uses \(unused); refer to it from a key's type or remove it")
        }
        let example = try readExample(top)
        let file = ContractFile(
            typeName: typeName, version: version, schema: ContractSchema(attributes: attributes, contentState: contentState),
            exampleAttributes: example.attributes, exampleContentState: example.contentState, lifecycle: try readLifecycle(top),
            card: try readCard(top))
        try file.validate()
        if let carried, carried != file.fingerprint {
            throw ContractFileError(
                .fingerprintMismatch, at: "fingerprint",
                "the file says \(carried), but its schema gives \(file.fingerprint): the keys were edited after the file was exported; "
                    + "export it again from the app's types, or remove the fingerprint to take the file as it is")
        }
        return file
    }

    /// `format` must be there and be ``format``.
    private static func checkFormat(_ top: ContractFileObject) throws(ContractFileError) {
        let format = try top.required(
            top.string("format", expected: "the string \"\(Self.format)\""), "format",
            expected: "\"\(Self.format)\" (is this a contract file?)")
        guard format == Self.format else {
            let message =
                format.hasPrefix("liveline-contract/")
                ? "is \"\(format)\", a format this server does not read; expected \"\(Self.format)\": update the server, or export with a matching SDK"
                : "is \"\(format)\"; expected \"\(Self.format)\""
            throw ContractFileError(.unsupportedFormat, at: "format", message)
        }
    }

    private static func readExample(_ top: ContractFileObject) throws(ContractFileError) -> (attributes: JSONValue?, contentState: JSONValue?) {
        guard let value = top.value("example") else { return (nil, nil) }
        let example = try ContractFileObject(value, at: "example", expected: "an object {\"attributes\": {…}, \"contentState\": {…}}")
        try example.check(allowed: ["attributes", "contentState"])
        return (example.value("attributes"), example.value("contentState"))
    }

    private static func readLifecycle(_ top: ContractFileObject) throws(ContractFileError) -> ContractLifecycle? {
        guard let value = top.value("lifecycle") else { return nil }
        let lifecycle = try ContractFileObject(value, at: "lifecycle", expected: "an object {\"staleAfter\": 900, …}")
        try lifecycle.check(allowed: ["staleAfter", "dismissAfter", "priorityBudget", "materialKeys"])
        return ContractLifecycle(
            staleAfter: try lifecycle.number("staleAfter", expected: "a number of seconds"),
            dismissAfter: try lifecycle.number("dismissAfter", expected: "a number of seconds"),
            priorityBudget: try lifecycle.int("priorityBudget", expected: "a whole number of pushes per hour"),
            materialKeys: try lifecycle.strings("materialKeys", expected: "a content-state key"))
    }

    private static func readCard(_ top: ContractFileObject) throws(ContractFileError) -> CardTemplate? {
        guard let value = top.value("card") else { return nil }
        let card = try ContractFileObject(value, at: "card", expected: "an object {\"lockScreen\": \"{key} …\", …}")
        let names = ["lockScreen", "compactLeading", "compactTrailing", "expanded"]
        try card.check(allowed: names)
        var texts: [String] = []
        for name in names { texts.append(try card.string(name, expected: "a string with {key} placeholders") ?? "") }
        _ = try card.required(card.value("lockScreen"), "lockScreen", expected: "the lock screen's text, a string")
        return CardTemplate(lockScreen: texts[0], compactLeading: texts[1], compactTrailing: texts[2], expanded: texts[3])
    }

    /// The parser's reason and place (`JSONParser`), without Foundation's own words.
    private static func reason(_ error: any Error) -> String {
        guard case DecodingError.dataCorrupted(let context) = error, let underlying = context.underlyingError else { return "\(error)" }
        return (underlying as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? context.debugDescription
    }
}
