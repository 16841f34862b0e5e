import Foundation

/// A thread of its own that runs the tasks that prefer it, whatever holds Swift's shared pool.
///
/// The shared pool has one thread per core; code that blocks one (URLSession's synchronous session
/// queue, a SQLite file being synced) or a burst of busy tasks can hold all of them for seconds.
/// Work that must keep running meanwhile runs here: ``bodyReader`` for URLSession's request bodies,
/// and CourierTesting's server, whose answers must not wait behind the tests it answers.
// @unchecked: `jobs` is only touched while holding `condition`; the thread is started once, in init.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
package final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// Reads request bodies for ``URLSessionTransport``. URLSession reads a streamed body
    /// synchronously on its session queue, and while it waits every other use of that session (even
    /// creating a task) waits too: were the body read on the shared pool, the tasks waiting on the
    /// session could hold every pool thread and the reader would never run (a deadlock seen on a
    /// 2-core machine).
    package static let bodyReader = ThreadExecutor(name: "Courier body reader")

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// Starts the thread, named `name` in a debugger.
    package init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
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
