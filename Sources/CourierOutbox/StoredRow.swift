import Courier
import Foundation
import GRDB

/// An item's row read without trusting it: a file written by another version of the app, or one
/// damaged on disk, must stop nothing but its own item. GRDB's typed subscripts stop the process
/// on a value of the wrong type, so every column is read as a `DatabaseValue` and converted here;
/// a request that can't be decoded makes the item parked and ``OutboxItem/Failure/Reason/unreadable``,
/// its bytes left in the row for support.
struct StoredRow {
    let row: Row
    /// The kept request, or why the row can't be sent.
    let request: Result<KeptRequest, UnreadableRow>
    /// The state on disk (nil when the column holds something else).
    let storedState: OutboxItem.State?
    /// The failure on disk (nil when there is none or it can't be read).
    let storedFailure: OutboxItem.Failure?

    /// Why a row can't be sent.
    struct UnreadableRow: Error {
        let detail: String
    }

    init(_ row: Row) {
        self.row = row
        storedState = String.fromDatabaseValue(Self.value(row, "state")).flatMap(OutboxItem.State.init(rawValue:))
        storedFailure = Data.fromDatabaseValue(Self.value(row, "failure")).flatMap { try? JSONDecoder().decode(OutboxItem.Failure.self, from: $0) }
        guard let bytes = Data.fromDatabaseValue(Self.value(row, "request")) else {
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

    var id: OutboxItem.ID { OutboxItem.ID(rawValue: int64("id") ?? 0) }
    var bodyFile: String? { String.fromDatabaseValue(Self.value(row, "bodyFile")) }

    /// The item as listed: an unreadable one is parked, with the failure that says so.
    var item: OutboxItem {
        let kept = try? request.get()
        var state = storedState ?? .parked
        var failure = storedFailure
        if case .failure(let unreadable) = request {
            state = .parked
            failure = Self.unreadableFailure(unreadable)
        }
        let enqueuedAt = Date(timeIntervalSince1970: Double.fromDatabaseValue(Self.value(row, "enqueuedAt")) ?? 0)
        return OutboxItem(
            id: id, group: String.fromDatabaseValue(Self.value(row, "grp")) ?? "", operationName: kept?.operationName ?? "",
            method: kept?.method ?? "", path: kept?.target ?? "", idempotencyKey: kept?.idempotencyKey,
            identity: OutboxStore.name(identity), state: state, attempts: Int(int64("attempts") ?? 0), lastFailure: failure,
            enqueuedAt: enqueuedAt, size: (int64("size") ?? 0) + (int64("failureSize") ?? 0))
    }

    /// The whole row, to send it.
    var record: OutboxStore.Record {
        let item = item
        return OutboxStore.Record(
            item: item, request: try? request.get(), identity: identity, body: Data.fromDatabaseValue(Self.value(row, "body")),
            bodyFile: bodyFile, needsParking: needsParking, spentAttempts: Int(int64("spentAttempts") ?? 0),
            budgetStart: Double.fromDatabaseValue(Self.value(row, "budgetStart")).map(Date.init(timeIntervalSince1970:)) ?? item.enqueuedAt)
    }

    private var identity: CallIdentity? { OutboxStore.identity(String.fromDatabaseValue(Self.value(row, "identity"))) }

    private func int64(_ column: String) -> Int64? { Int64.fromDatabaseValue(Self.value(row, column)) }

    /// A column's value, NULL when the row has no such column.
    private static func value(_ row: Row, _ column: String) -> DatabaseValue {
        row.hasColumn(column) ? row[column] as DatabaseValue : .null
    }

    static func unreadableFailure(_ unreadable: UnreadableRow) -> OutboxItem.Failure {
        OutboxItem.Failure(
            kind: CourierError.Kind.invalidRequest.identifier, reason: .unreadable,
            detail: "The item's stored row can't be read (written by another version of the app, or damaged): \(unreadable.detail)")
    }
}
