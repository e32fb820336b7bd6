/// Marks `Dictionary`, so a schema derivation can refuse it by name before running its decoding
/// (a dictionary reads whichever keys the JSON has; a contract lists fixed keys, `docs/contracts.md`).
protocol DerivationDictionary {}

extension Dictionary: DerivationDictionary {}
