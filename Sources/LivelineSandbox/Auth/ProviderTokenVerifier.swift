import LivelineCrypto
import Synchronization

/// Checks provider tokens against the registered keys, verifying each distinct token once.
///
/// Related APNs documentation: "Establishing a token-based connection to APNs" (`docs/apns.md`
/// §1.4): the token is an ES256 JWT whose `kid` names a key of the team in `iss`. A token that
/// does not parse, names an unknown key, has another team than its key's, or whose signature does
/// not verify is `403 InvalidProviderToken`. Its age is not checked here: that depends on the
/// clock and is checked on every request.
///
/// Verifying ES256 costs about a hundred microseconds, while a client sends the same token for up
/// to an hour, so results are cached by the token's text (bounded; cleared when keys change).
final class ProviderTokenVerifier: Sendable {
    /// The outcome for one token text.
    enum Outcome: Sendable {
        case valid(ProviderToken)
        case invalid
    }

    private struct State {
        var keys: [String: RegisteredKey] = [:]
        var cache: [String: Outcome] = [:]
    }

    private let state = Mutex(State())
    private let generationCounter = Atomic<UInt64>(0)
    static let cacheLimit = 10_000

    /// Changes whenever the cache is cleared (keys added or replaced, a reset): an outcome obtained
    /// under an earlier generation may no longer hold. Read it before `check`.
    var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

    func addKey(_ key: ES256PublicKey, keyID: String, teamID: String) {
        state.withLock {
            $0.keys[keyID] = RegisteredKey(publicKey: key, teamID: teamID)
            $0.cache.removeAll()
            generationCounter.add(1, ordering: .releasing)
        }
    }

    func clearCache() {
        state.withLock {
            $0.cache.removeAll()
            generationCounter.add(1, ordering: .releasing)
        }
    }

    /// Checks `compact` (the text after `bearer `).
    func check(_ compact: String) -> Outcome {
        if let known = state.withLock({ $0.cache[compact] }) { return known }
        let outcome: Outcome
        if let token = try? ProviderToken.parse(compact),
            let key = state.withLock({ $0.keys[token.keyID] }),
            key.teamID == token.teamID,
            token.verify(with: key.publicKey)
        {
            outcome = .valid(token)
        } else {
            outcome = .invalid
        }
        state.withLock {
            if $0.cache.count >= Self.cacheLimit { $0.cache.removeAll() }
            $0.cache[compact] = outcome
        }
        return outcome
    }
}
