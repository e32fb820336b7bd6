import Liveline
import LivelineModel

extension ContractRegistry {
    /// The built-in features' contracts, as the composition root builds them (`Assembly.contracts`).
    static var builtIn: ContractRegistry { Assembly.contracts() }
}
