extension ContractCompatibility {
    /// The verdict on going from `old` (version `oldVersion`) to `new`, in a few lines: breaking
    /// or compatible, then each change under its heading, then a word on the version numbers
    /// (`docs/contracts.md`, "Compatibility of two contract files"). `liveline contracts diff` prints
    /// it and a server refusing a contract file says it.
    public static func report(from old: ContractSchema, to new: ContractSchema, oldVersion: Int, newVersion: Int) -> String {
        let changes = changes(from: old, to: new)
        let breaking = changes.filter(\.isBreaking), compatible = changes.filter { !$0.isBreaking }
        var lines: [String] = []
        let head = "Version \(oldVersion) → \(newVersion): "
        if !breaking.isEmpty {
            lines.append(
                head + "breaking (\(count(breaking.count, "change"))). An app built with version \(oldVersion) drops some states of "
                    + "version \(newVersion), or states stored under version \(oldVersion) no longer decode.")
        } else if compatible.isEmpty {
            lines.append(head + "compatible; nothing that decoding depends on changed.")
        } else {
            lines.append(head + "compatible. An app built with version \(oldVersion) decodes every state of version \(newVersion).")
        }
        if !breaking.isEmpty { lines += ["Breaking:"] + breaking.map { "  \($0)" } }
        if !compatible.isEmpty { lines += ["Compatible:"] + compatible.map { "  \($0)" } }
        let shapeChanged = changes.contains { $0.kind != .summaryChanged }
        if newVersion < oldVersion {
            lines.append("The version went down (\(oldVersion) → \(newVersion)); a new contract has a higher version.")
        } else if newVersion == oldVersion, shapeChanged {
            lines.append("The version is still \(oldVersion) though keys changed; raise it to \(oldVersion + 1).")
        }
        return lines.joined(separator: "\n")
    }

    private static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}
