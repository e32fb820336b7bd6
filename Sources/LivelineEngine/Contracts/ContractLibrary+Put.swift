import Foundation
import LivelineLog
import LivelineModel
import LivelineStore

extension ContractLibrary {
    /// Stores `file` as a version of its type (`PUT /v1/contracts/{type}`, a contract file).
    ///
    /// Refused (``EngineError/Code/contractRefused``), with nothing stored: a compiled-in type's
    /// name; a version stored already with another shape; a version older than the latest; a
    /// version that an installed one could not decode pushes of (the keys and the installed
    /// versions with their device counts), unless `force`. Devices whose app did not say its
    /// version are taken to have the latest.
    @discardableResult
    public func put(_ file: ContractFile, origin: AnyContract.Origin, force: Bool = false) throws -> ContractPutResult {
        let type = file.typeName
        if registry.isBuiltIn(type) {
            throw EngineError(
                .contractRefused, "'\(type)' is a contract compiled into this server; a contract brought at run time takes another name",
                field: "type")
        }
        let now = clock()
        let result = try store.contracts.withVersionsLocked(of: type) { transaction -> ContractPutResult in
            let versions = try store.contracts.versions(of: type, in: transaction)
            if let same = versions.first(where: { $0.version == file.version }) {
                guard same.fingerprint == file.fingerprint else {
                    throw EngineError(
                        .contractRefused,
                        "version \(file.version) of \(type) is stored with another shape (fingerprint \(same.fingerprint), this one \(file.fingerprint)): a changed shape is a new version",
                        field: "version")
                }
                return ContractPutResult(typeName: type, version: file.version, fingerprint: file.fingerprint, created: false, changes: [])
            }
            if let other = versions.first(where: { $0.fingerprint == file.fingerprint }) {
                throw EngineError(
                    .contractRefused, "this shape of \(type) is stored as version \(other.version) already (fingerprint \(file.fingerprint))",
                    field: "version")
            }
            if let latest = versions.last, file.version < latest.version {
                throw EngineError(
                    .contractRefused, "version \(file.version) of \(type) is older than the stored version \(latest.version)", field: "version")
            }
            let changes = try changesForInstalled(file, versions: versions, in: transaction)
            let breaking = changes.filter { $0.changes.contains(where: \.isBreaking) }
            if !breaking.isEmpty, !force {
                throw EngineError(.contractRefused, Self.refusal(file, breaking: breaking), field: "contentState")
            }
            try store.contracts.insert(
                ContractVersionRecord(
                    typeName: type, version: file.version, fingerprint: file.fingerprint, document: String(decoding: file.json, as: UTF8.self),
                    origin: Self.originText(origin), createdAt: now), in: transaction)
            return ContractPutResult(
                typeName: type, version: file.version, fingerprint: file.fingerprint, created: true, changes: changes.flatMap(\.changes))
        }
        if result.created {
            registry.loaded.add(AnyContract(file: file, origin: origin))
            logger.record(
                EngineEvent(
                    .info, .contractAdded,
                    message: "\(type) version \(file.version) (fingerprint \(file.fingerprint)) from \(origin)\(force ? ", forced" : "")"))
        }
        return result
    }

    /// One installed version's changes under `file`.
    struct InstalledChanges {
        var version: ContractVersionRecord
        var devices: Int
        var changes: [ContractChange]
    }

    /// `file`'s changes for each version installed on devices (the latest for devices that did not say).
    func changesForInstalled(
        _ file: ContractFile, versions: [ContractVersionRecord], in transaction: any SQLTransaction
    ) throws
        -> [InstalledChanges]
    {
        var devices: [Int: (ContractVersionRecord, Int)] = [:]
        for installed in try store.contracts.installed(file.typeName, in: transaction) {
            let version = installed.fingerprint.flatMap { fingerprint in versions.first { $0.fingerprint == fingerprint } } ?? versions.last
            guard let version else { continue }
            devices[version.version, default: (version, 0)].1 += installed.devices
        }
        return devices.values.sorted { $0.0.version < $1.0.version }.map { version, count in
            guard let old = contract(of: version) else {
                // An installed version that cannot be read cannot be compared: taken only when forced.
                let unread = ContractChange(
                    .typeChanged, at: "", isBreaking: true, "stored version \(version.version) no longer reads here, so it cannot be compared")
                return InstalledChanges(version: version, devices: count, changes: [unread])
            }
            return InstalledChanges(version: version, devices: count, changes: ContractCompatibility.changes(from: old.schema, to: file.schema))
        }
    }

    static func refusal(_ file: ContractFile, breaking: [InstalledChanges]) -> String {
        var lines = ["version \(file.version) of \(file.typeName) would make installed apps drop pushes:"]
        for installed in breaking {
            lines.append(
                "- version \(installed.version.version) (\(installed.devices) device\(installed.devices == 1 ? "" : "s")): "
                    + installed.changes.filter(\.isBreaking).map(\.description).joined(separator: "; "))
        }
        lines.append("Keep the old keys and types (add only optional keys), or force it (?force=true) once those apps are updated.")
        return lines.joined(separator: "\n")
    }

    static func originText(_ origin: AnyContract.Origin) -> String {
        switch origin {
        case .api, .swiftType: "api"
        case .file(let name): "file:" + name
        }
    }

    /// Where a stored version came from (its `origin` column, as ``originText(_:)`` wrote it).
    public static func origin(of record: ContractVersionRecord) -> AnyContract.Origin {
        record.origin.hasPrefix("file:") ? .file(String(record.origin.dropFirst(5))) : .api
    }
}
