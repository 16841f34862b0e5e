import Courier
import Logging

/// Keeps every line logged through its ``logger``, for tests that check what Courier logged.
///
/// ```swift
/// let log = LogRecorder()
/// let client = Client(baseURL: url, middlewares: [LoggingMiddleware(logger: log.logger)])
/// _ = try await client.send(Profile())
/// #expect(log.entries.contains { $0.message == "response" })
/// ```
public final class LogRecorder: Sendable {
    /// One logged line.
    public struct Entry: Sendable {
        /// The line's level.
        public var level: Logger.Level
        /// The message, without metadata.
        public var message: String
        /// The line's metadata, merged with the logger's.
        public var metadata: Logger.Metadata

        /// The message followed by its metadata, as one searchable text.
        public var text: String { "\(message) \(metadata)" }
    }

    private let recorded = Locked<[Entry]>([])

    /// Creates an empty recorder.
    public init() {}

    /// The lines so far, oldest first.
    public var entries: [Entry] { recorded.current }

    /// Each line's ``Entry/text``, oldest first.
    public var messages: [String] { entries.map(\.text) }

    /// A logger at `level` (trace by default) whose every line lands in ``entries``.
    public func logger(label: String = "courier.test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { [recorded] _ in Handler(recorded: recorded) }
        logger.logLevel = level
        return logger
    }

    /// ``logger(label:level:)`` with its defaults.
    public var logger: Logger { logger() }

    private struct Handler: LogHandler {
        let recorded: Locked<[Entry]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let entry = Entry(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 })
            recorded.withLock { $0.append(entry) }
        }
    }
}
