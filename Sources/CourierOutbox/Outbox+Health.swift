import Courier
import Foundation
import Logging
import OpenAPIRuntime

/// The storage's health: each use observed, a failure logged and sent once until a use works again.
extension Outbox {
    static func storageError(_ error: any Error) -> OutboxError {
        (error as? OutboxError) ?? .storage("\(error)")
    }

    /// Runs one use of the storage: a failure is logged and sent once until a use works again
    /// (then that is logged and sent too). The outbox's own refusals (full, no such item) are not
    /// failures of the storage.
    func observed<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        do {
            let value = try await operation()
            storageWorked()
            return value
        } catch let error as OutboxError {
            if case .storage = error { storageFailed(error) } else { storageWorked() }
            throw error
        } catch {
            storageFailed(.storage("\(error)"))
            throw error
        }
    }

    private func storageWorked() {
        storageFailures = 0
        guard storageIsFailing else { return }
        storageIsFailing = false
        logger.notice("The outbox's storage works again")
        subscribers.send(.storageWorksAgain)
    }

    private func storageFailed(_ error: OutboxError) {
        storageFailures += 1
        guard !storageIsFailing else { return }
        storageIsFailing = true
        logger.error("The outbox's storage failed; sending waits until it works again", metadata: ["error": "\(error)"])
        subscribers.send(.storageFailed(error))
    }
}

extension Outbox {
    /// What the outbox is doing now, for a test that waited too long to say where it waited.
    package var diagnosis: String {
        "sending: \(isSending), stopping: \(stopWaiters != nil), stopped: \(hasStopped), lanes: \(lanes.keys.sorted()), "
            + "holds: \(holds.keys.sorted()), awaiting user: \(awaitingUser.sorted()), folder uses: \(folderUses), "
            + "user check: \(userCheck != nil), storage retry: \(storageRetry != nil), storage failing: \(storageIsFailing)"
    }
}
