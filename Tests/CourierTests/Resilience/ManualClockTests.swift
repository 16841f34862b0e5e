import Courier
import CourierTesting
import Testing

extension ResilienceTests {
    /// The manual clock used to test waits without sleeping.
    @Suite(.timeLimit(.minutes(10))) struct ManualClockTests {
        @Test func sleepersWakeInDeadlineOrderWhenTimePasses() async throws {
            let clock = ManualClock()
            let woken = Locked<[Int]>([])
            let late = Task {
                try await clock.sleep(for: .seconds(5))
                woken.withLock { $0.append(5) }
            }
            let early = Task {
                try await clock.sleep(for: .seconds(2))
                woken.withLock { $0.append(2) }
            }
            await clock.waitForSleepers(count: 2)
            clock.advance(by: .seconds(1))
            #expect(clock.pendingDeadlines.count == 2)
            clock.advance(by: .seconds(1))
            try await early.value
            #expect(woken.current == [2])
            clock.advanceToNextDeadline()
            try await late.value
            #expect(woken.current == [2, 5])
            #expect(clock.now == .init(offset: .seconds(5)))
            #expect(clock.sleeps.sorted() == [.seconds(2), .seconds(5)])
        }

        @Test func aPastDeadlineReturnsAtOnce() async throws {
            let clock = ManualClock()
            clock.advance(by: .seconds(3))
            try await clock.sleep(until: .init(offset: .seconds(1)))
            #expect(clock.pendingDeadlines.isEmpty)
        }

        @Test func cancellingASleeperThrowsAtOnce() async throws {
            let clock = ManualClock()
            let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
            await clock.waitForSleepers()
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
            #expect(clock.pendingDeadlines.isEmpty)
        }

        @Test func anAlreadyCancelledTaskDoesNotSleep() async throws {
            let clock = ManualClock()
            let sleeper = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await clock.sleep(for: .seconds(60))
            }
            await #expect(throws: CancellationError.self) { try await sleeper.value }
        }
    }
}
