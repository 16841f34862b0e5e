import Courier
import Foundation
import GRDB

/// An item's row read without trusting it: a file written by another version of the app, or one
/// damaged on disk, must stop nothing but its own item. GRDB's typed subscripts stop the process
/// on a value of the wrong type, so every column is read once, here, as a value of the type it
/// should hold or nil; a request that can't be decoded makes the item parked and
/// ``OutboxItem/Failure/Reason/unreadable``, its bytes left in the row for support.
struct StoredRow {
    /// The kept request, or why the row can't be sent.
    let request: Result<KeptRequest, UnreadableRow>
    /// The state on disk (nil when the column holds something else).
    let storedState: OutboxItem.State?
    /// The failure on disk (nil when there is none or it can't be read).
    let storedFailure: OutboxItem.Failure?
    let id: OutboxItem.ID
    let group: String
    /// Whether the group column holds text (without NUL): a row whose group can't be read is in
    /// no group, and parks alone.
    let groupIsReadable: Bool
    let identity: CallIdentity?
    let sends: Int
    let enqueuedAt: Date
    let size: Int64
    let body: Data?
    let bodyFile: String?
    let spentAttempts: Int
    let budgetStart: Date?

    /// Why a row can't be sent.
    struct UnreadableRow: Error {
        let detail: String
    }

    init(_ row: Row) {
        let columns = Columns(row: row)
        id = OutboxItem.ID(rawValue: columns.int64("id") ?? 0)
        let storedGroup = columns.string("grp")
        group = storedGroup ?? ""
        groupIsReadable = storedGroup.map { !$0.holdsNUL } ?? false
        identity = OutboxStore.identity(columns.string("identity"))
        sends = Int(columns.int64("attempts") ?? 0)  // the column keeps its first name
        enqueuedAt = Date(timeIntervalSince1970: columns.double("enqueuedAt") ?? 0)
        size = (columns.int64("size") ?? 0) + (columns.int64("failureSize") ?? 0)
        body = columns.data("body")
        bodyFile = columns.string("bodyFile")
        spentAttempts = Int(columns.int64("spentAttempts") ?? 0)
        budgetStart = columns.double("budgetStart").map(Date.init(timeIntervalSince1970:))
        storedState = columns.string("state").flatMap(OutboxItem.State.init(rawValue:))
        storedFailure = columns.data("failure").flatMap { try? JSONDecoder().decode(OutboxItem.Failure.self, from: $0) }
        guard groupIsReadable else {
            request = .failure(UnreadableRow(detail: "its group is not text"))
            return
        }
        guard let bytes = columns.data("request") else {
            request = .failure(UnreadableRow(detail: "its request is missing or not bytes"))
            return
        }
        do {
            let decoded = try JSONDecoder().decode(KeptRequest.self, from: bytes)
            request = storedState == nil ? .failure(UnreadableRow(detail: "its state is not one this version knows")) : .success(decoded)
        } catch {
            request = .failure(UnreadableRow(detail: "its request can't be decoded (\(error))"))
        }
    }

    /// Whether the row can't be read and is not parked as unreadable on disk yet.
    var needsParking: Bool {
        guard case .failure = request else { return false }
        return storedState != .parked || storedFailure?.reason != .unreadable
    }

    /// The item as listed: an unreadable one is parked, with the failure that says so.
    var item: OutboxItem {
        let kept = try? request.get()
        var state = storedState ?? .parked
        var failure = storedFailure
        if case .failure(let unreadable) = request {
            state = .parked
            failure = Self.unreadableFailure(unreadable)
        }
        return OutboxItem(
            id: id, group: group, operationName: kept?.operationName ?? "", method: kept?.method ?? "", path: kept?.target ?? "",
            idempotencyKey: kept?.idempotencyKey, identity: OutboxStore.name(identity), state: state, sends: sends,
            lastFailure: failure, enqueuedAt: enqueuedAt, size: size)
    }

    /// The whole row, to send it.
    var record: OutboxStore.Record {
        OutboxStore.Record(
            item: item, request: try? request.get(), identity: identity, body: body, bodyFile: bodyFile, needsParking: needsParking,
            spentAttempts: spentAttempts, budgetStart: budgetStart ?? enqueuedAt, isInAGroup: groupIsReadable)
    }

    static func unreadableFailure(_ unreadable: UnreadableRow) -> OutboxItem.Failure {
        OutboxItem.Failure(
            kind: CourierError.Kind.invalidRequest.identifier, reason: .unreadable,
            detail: "The item's stored row can't be read (written by another version of the app, or damaged): \(unreadable.detail)")
    }
}

/// A row's columns, each read as the type it should hold: nil when it is NULL, missing or holds
/// another type (matched on the stored value itself, so nothing can trap).
private struct Columns {
    let row: Row

    private func storage(_ column: String) -> DatabaseValue.Storage {
        (row.hasColumn(column) ? row[column] as DatabaseValue : DatabaseValue.null).storage
    }

    func int64(_ column: String) -> Int64? {
        switch storage(column) {
        case .int64(let value): value
        case .double(let value): Int64(exactly: value)
        default: nil
        }
    }

    func double(_ column: String) -> Double? {
        switch storage(column) {
        case .double(let value): value
        case .int64(let value): Double(value)
        default: nil
        }
    }

    func string(_ column: String) -> String? {
        if case .string(let value) = storage(column) { return value }
        return nil
    }

    func data(_ column: String) -> Data? {
        switch storage(column) {
        case .blob(let value): value
        case .string(let value): Data(value.utf8)
        default: nil
        }
    }
}
