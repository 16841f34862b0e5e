/// Lets a middleware run the current call once more in the background, after the caller has its
/// answer: the cache serves a stale response at once and refreshes the entry this way.
package struct BackgroundRevalidation: Sendable {
    /// Starts the call again with the given cache policy; `completion` runs when it ends, whatever the outcome.
    package let start: @Sendable (_ policy: CachePolicy, _ completion: @escaping @Sendable () -> Void) -> Void

    package init(start: @escaping @Sendable (_ policy: CachePolicy, _ completion: @escaping @Sendable () -> Void) -> Void) {
        self.start = start
    }
}
