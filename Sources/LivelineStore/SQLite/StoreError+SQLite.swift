internal import CSQLite
import Foundation

extension StoreError {
    /// The store error for a failed SQLite call: `resultCode` (primary or extended) mapped onto a
    /// ``StoreError/Code``, and a message with SQLite's explanation and the result code.
    ///
    /// A full disk is ``Code/storageFull``: SQLite says `SQLITE_FULL` when a write of its files
    /// found no space, and an `SQLITE_IOERR_*` (growing the `-shm` file, truncating, syncing)
    /// whose system error (`sqlite3_system_errno`, given as `systemError`) is `ENOSPC` or `EDQUOT`
    /// (`docs/reliability.md`, "Disk full").
    ///
    /// Related SQLite documentation: "Result and Error Codes" (the low 8 bits of an extended code
    /// are its primary code), "sqlite3_system_errno".
    init(sqliteCode resultCode: Int32, systemError: Int32 = 0, _ message: String) {
        let code: Code =
            switch resultCode & 0xFF {
            case SQLITE_CONSTRAINT: .constraint
            case SQLITE_BUSY, SQLITE_LOCKED: .busy
            case SQLITE_FULL: .storageFull
            case SQLITE_IOERR where systemError == ENOSPC || systemError == EDQUOT: .storageFull
            case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_NOLFS, SQLITE_AUTH: .io
            case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
            case SQLITE_MISUSE, SQLITE_RANGE, SQLITE_ERROR: .misuse
            case SQLITE_NOTFOUND: .notFound
            default: .database
            }
        let explanation =
            code == .storageFull
            ? "\(message) (SQLite result code \(resultCode)\(systemError != 0 ? ", \(String(cString: strerror(systemError)))" : ""))"
            : "\(message) (SQLite result code \(resultCode))"
        self.init(code, explanation)
    }
}
