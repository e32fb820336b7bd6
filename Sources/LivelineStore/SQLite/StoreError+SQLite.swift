internal import CSQLite

extension StoreError {
    /// The store error for a failed SQLite call: `resultCode` (primary or extended) mapped onto a
    /// ``StoreError/Code``, and a message with SQLite's explanation and the result code.
    ///
    /// Related SQLite documentation: "Result and Error Codes" (the low 8 bits of an extended code
    /// are its primary code).
    init(sqliteCode resultCode: Int32, _ message: String) {
        let code: Code =
            switch resultCode & 0xFF {
            case SQLITE_CONSTRAINT: .constraint
            case SQLITE_BUSY, SQLITE_LOCKED: .busy
            case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_FULL, SQLITE_READONLY, SQLITE_PERM, SQLITE_NOLFS, SQLITE_AUTH: .io
            case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
            case SQLITE_MISUSE, SQLITE_RANGE, SQLITE_ERROR: .misuse
            case SQLITE_NOTFOUND: .notFound
            default: .database
            }
        self.init(code, "\(message) (SQLite result code \(resultCode))")
    }
}
