import Foundation

/// Where a generated client's call got its response, and how many attempts it took: what
/// ``RequestContext/reporting(_:)`` returns beside the call's value.
public struct CallReport: Sendable, Hashable {
    /// Where the response came from: the network unless a cache answered.
    public var source: ResponseSource
    /// How many times the transport was called.
    public var attempts: Int
}

extension RequestContext {
    /// Runs one call of a generated client and returns its value with its report.
    ///
    /// ```swift
    /// let (feed, report) = try await RequestContext.reporting { try await api.getFeed() }
    /// if report.source == .cache { … }
    /// ```
    ///
    /// The call runs in the ``current`` context (or one that carries only marks, when there is
    /// none) with a report of its own: calls made at once each learn their own. Make one call in
    /// the closure; of several, the report tells of the last to answer.
    public static func reporting<T>(_ call: () async throws -> T) async rethrows -> (T, CallReport) {
        var context = current ?? .carryingMarksOnly(operationID: "")
        context.report = Report()
        let value = try await $current.withValue(context) { try await call() }
        return (value, CallReport(source: context.report.source, attempts: context.report.attempts))
    }
}
