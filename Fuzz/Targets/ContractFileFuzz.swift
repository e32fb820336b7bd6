import Foundation

/// A contract file as the server first reads it (`PUT /v1/contracts/{type}`, a file of
/// `LIVELINE_CONTRACTS_DIR`): `ContractFile.parse`, which refuses with an error naming the field
/// or gives a file whose written form reads back equal, whose fingerprint is stable, which is
/// compatible with itself, and whose example and card a server then uses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let raw = Data(bytes: start, count: count)
    let file: ContractFile
    do {
        file = try ContractFile.parse(raw)
    } catch {
        _ = error.description
        return 0
    }
    guard let again = try? ContractFile.parse(file.json), again == file, again.fingerprint == file.fingerprint else {
        fatalError("the written form of a file does not read back equal: \(String(decoding: file.json, as: UTF8.self))")
    }
    guard !ContractCompatibility.changes(from: file.schema, to: file.schema).contains(where: \.isBreaking) else {
        fatalError("a contract breaks itself")
    }
    let contract = AnyContract(file: file, origin: .api)
    let attributes = file.exampleAttributes ?? .object([:]), state = file.exampleContentState ?? .object([:])
    _ = contract.checkContentState(json: state.compactJSON, now: Date())
    _ = contract.card(attributes: attributes.compactJSON, contentState: state.compactJSON, badge: "")
    _ = contract.materialChange(fromJSON: state.compactJSON, toJSON: state.compactJSON)
    return 0
}
