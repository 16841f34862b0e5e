import Courier
import CourierTestSupport
import Foundation
import Testing

/// `Deadline.abandoning`: the caller gets an answer by the deadline even from work that ignores
/// cancellation, and what it leaves running is counted until it ends.
/// Deadlines that aren't the point of a test are an hour long: under Thread Sanitizer beside the
/// whole suite, a task may wait tens of seconds for a thread, and the timer thread doesn't.
@Suite(.timeLimit(.minutes(5))) struct AbandoningDeadlineTests {
    struct Expired: Error {}

    /// A wait that cancellation doesn't end, as a query to a frozen database.
    final class DeafGate: Sendable {
        private let state = Locked((open: false, waiting: [CheckedContinuation<Void, Never>]()))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            for waiting in state.withLock({ state in defer { state = (true, []) }; return state.waiting }) { waiting.resume() }
        }
    }

    @Test func workThatIgnoresCancellationIsLeftAndCountedUntilItEnds() async throws {
        let abandoned = AbandonedWork(limit: 2)
        let (started, release) = (Level(), DeafGate())
        await #expect(throws: Expired.self) {
            try await Deadline(timeout: .milliseconds(50)).abandoning({ Expired() }, to: abandoned) {
                started.raise(to: 1)
                await release.wait()
                return 1
            }
        }
        await started.wait(until: 1)  // however late the task began, it runs, and is counted
        #expect(abandoned.current == 1, "still running, counted")
        #expect(!abandoned.isFull)
        release.open()
        #expect(await eventually(within: .seconds(120)) { abandoned.current == 0 }, "ended, no longer counted")
    }

    @Test func workThatEndsInTimeAnswersAndLeavesNothing() async throws {
        let abandoned = AbandonedWork(limit: 2)
        let value = try await Deadline(timeout: .seconds(3600)).abandoning({ Expired() }, to: abandoned) { 42 }
        #expect(value == 42)
        await #expect(throws: CancellationError.self) {
            try await Deadline(timeout: .seconds(3600)).abandoning({ Expired() }, to: abandoned) { () async throws -> Int in
                throw CancellationError()
            }
        }
        #expect(abandoned.current == 0)
    }

    @Test func theCallersCancellationAnswersAtOnce() async throws {
        let abandoned = AbandonedWork(limit: 2)
        let (started, release) = (Level(), DeafGate())
        let call = Task {
            try await Deadline(timeout: .seconds(3600)).abandoning({ Expired() }, to: abandoned) {
                started.raise(to: 1)
                await release.wait()
                return 1
            }
        }
        await started.wait(until: 1)
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(abandoned.current == 1)
        release.open()
        #expect(await eventually(within: .seconds(120)) { abandoned.current == 0 })
    }

    @Test func aCallCancelledBeforeItStartsNeverRunsItsWork() async throws {
        let abandoned = AbandonedWork(limit: 2)
        let ran = Locked(false)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Deadline(timeout: .seconds(3600)).abandoning({ Expired() }, to: abandoned) { ran.withLock { $0 = true } }
        }
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(!ran.current)
        #expect(abandoned.current == 0)
    }
}
