import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// `/v1/contracts` (admin key): the contracts the server knows, and an app's own contract added
/// at run time (`docs/contracts.md`, "Bring your own Live Activity"), stored in the database so
/// every instance sharing it serves it.
struct ContractHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine

    func addRoutes(to router: inout Router) {
        router.add(Routes.listContracts) { request in
            try auth.requireAdmin(request)
            let contracts: [JSONValue] = engine.contracts.contracts.map { contract in
                .object([
                    "type": .string(contract.typeName), "version": .int(contract.version), "fingerprint": .string(contract.fingerprint),
                    "origin": .string(Self.origin(contract.origin)),
                ])
            }
            return .jsonBytes(Array(JSONValue.object(["contracts": .array(contracts)]).compactJSON))
        }
        router.add(Routes.putContract) { request in
            try auth.requireAdmin(request)
            let type = try ContractFields.type.text(request.parameter("type"))
            let force = try ContractFields.force.textQuery(of: request) == "true"
            let file = try Self.file(request)
            guard file.typeName == type else {
                throw HTTPError.badRequest("the contract's type is '\(file.typeName)', but the path names '\(type)'", field: "type")
            }
            let result = try engine.library.put(file, origin: .api, force: force)
            let changes: [JSONValue] = result.changes.map { change in
                .object(["keyPath": .string(change.keyPath), "breaking": .bool(change.isBreaking), "description": .string(change.description)])
            }
            let answer: JSONValue = .object([
                "type": .string(result.typeName), "version": .int(result.version), "fingerprint": .string(result.fingerprint),
                "created": .bool(result.created), "changes": .array(changes),
            ])
            return .jsonBytes(Array(answer.compactJSON), status: result.created ? 201 : 200)
        }
        router.add(Routes.getContract) { request in
            try auth.requireAdmin(request)
            let type = try ContractFields.type.text(request.parameter("type"))
            guard let contract = engine.contracts.contract(named: type) else {
                throw HTTPError.notFound("there is no contract \(type); known: \(engine.contracts.names.joined(separator: ", "))")
            }
            return .jsonBytes(Array(try Self.description(of: contract, engine: engine).compactJSON))
        }
    }

    /// The contract file of a request's body: its shape checked as the document states it, then
    /// its rules (``ContractFile/parse(_:)``); a problem names its field (a 413 for a file too large).
    static func file(_ request: HTTPRequest) throws -> ContractFile {
        if request.body.count > ContractFile.maximumSize {
            throw HTTPError(
                status: 413, code: "contractTooLarge",
                message: "the contract file is \(request.body.count) bytes; a contract file may have at most \(ContractFile.maximumSize) bytes",
                field: "body")
        }
        _ = try request.decode(ContractFileBody.self)
        do {
            return try ContractFile.parse(Data(request.body))
        } catch {
            throw HTTPError.badRequest(error.description, field: error.field.isEmpty ? "body" : error.field)
        }
    }

    /// A contract, its stored versions and the versions installed on devices.
    static func description(of contract: AnyContract, engine: Engine) throws -> JSONValue {
        let versions = contract.origin == .swiftType ? [] : try engine.library.versions(of: contract.typeName)
        let versionOf = Dictionary(versions.map { ($0.fingerprint, $0.version) }, uniquingKeysWith: { first, _ in first })
        let installed: [JSONValue] = try engine.library.installed(contract.typeName).map { installed in
            let version = installed.fingerprint.flatMap { versionOf[$0] ?? ($0 == contract.fingerprint ? contract.version : nil) }
            return .object([
                "fingerprint": installed.fingerprint.map(JSONValue.string) ?? .null, "version": version.map(JSONValue.int) ?? .null,
                "devices": .int(installed.devices),
            ])
        }
        let file = contract.file ?? ContractFile(contract)
        return .object([
            "type": .string(contract.typeName), "version": .int(contract.version), "fingerprint": .string(contract.fingerprint),
            "origin": .string(origin(contract.origin)), "contract": try JSONValue(json: file.json),
            "versions": .array(
                versions.map { record in
                    .object([
                        "version": .int(record.version), "fingerprint": .string(record.fingerprint), "origin": .string(record.origin),
                        "createdAt": .string(ISO8601DateFormatter().string(from: record.createdAt)),
                    ])
                }),
            "installed": .array(installed),
        ])
    }

    static func origin(_ origin: AnyContract.Origin) -> String {
        switch origin {
        case .swiftType: "builtIn"
        case .api: "api"
        case .file: "file"
        }
    }
}
