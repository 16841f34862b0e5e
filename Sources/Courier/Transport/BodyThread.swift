import Foundation

/// A thread of its own that runs the tasks reading request bodies for ``URLSessionTransport``.
///
/// URLSession reads a streamed body synchronously on its session queue, and while it waits every
/// other use of that session (even creating a task) waits too. Were the body read on Swift's shared
/// thread pool, the tasks waiting on the session could hold every pool thread and the reader would
/// never run: a deadlock seen on a 2-core machine. On this thread the reader always runs.
// @unchecked: `jobs` is only touched while holding `condition`; the thread is started once, in init.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class BodyThread: TaskExecutor, @unchecked Sendable {
    static let shared = BodyThread()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "Courier body reader"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    private func run() {
        while true {
            let job = condition.withLock {
                while jobs.isEmpty { condition.wait() }
                return jobs.removeFirst()
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
