import Foundation
import GRDBSQLite

/// The current row of a stepped SQLite statement, read by column position through SQLite's C API.
///
/// Each accessor returns nil for a NULL or for a value of another storage class, so a row written
/// by a foreign or damaged program is skipped rather than read as zeros. Valid until the
/// statement steps again or is reset.
struct SQLiteRow {
    let statement: OpaquePointer

    /// An INTEGER column.
    func int64(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_INTEGER ? sqlite3_column_int64(statement, column) : nil
    }

    /// A REAL column (an INTEGER one converts).
    func double(_ column: Int32) -> Double? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_FLOAT, SQLITE_INTEGER: sqlite3_column_double(statement, column)
        default: nil
        }
    }

    /// The bytes of a BLOB or TEXT column, valid only inside `body`.
    func withBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        let type = sqlite3_column_type(statement, column)
        guard type == SQLITE_BLOB || type == SQLITE_TEXT else { return nil }
        // The pointer first, then the length: the order SQLite documents. An empty value has no pointer.
        let pointer = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count == 0 || pointer != nil else { return nil }  // SQLite out of memory: read as damaged.
        return body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    /// A BLOB or TEXT column, copied.
    func data(_ column: Int32) -> Data? {
        withBytes(column) { Data($0) }
    }

    /// A TEXT (or BLOB) column as UTF-8 text.
    func string(_ column: Int32) -> String? {
        withBytes(column) { String(decoding: $0, as: UTF8.self) }
    }
}
