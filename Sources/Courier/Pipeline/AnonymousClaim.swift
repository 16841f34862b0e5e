import HTTPTypes

/// A step's note that it treats the current request as nobody's without knowing who is signed in:
/// a cache files its response where every user finds it, coalescing shares it among callers.
///
/// ``CredentialsMiddleware`` marks it when it adds credentials further down the chain, and a
/// ``Client`` when a request leaves its chain with credential fields (added by an app's own
/// middleware), so that neither step hands one user's response to another.
///
/// The claim travels down the chain in ``RequestContext/anonymousClaim``. A claim made while
/// another is current passes its marks on to that one, so every layer that filed the request as
/// anonymous learns of them; a cache right behind a ``CoalescingMiddleware`` shares the
/// middleware's claim instead of making its own.
package final class AnonymousClaim: Sendable {
    private let credentialed = Locked(false)
    private let outer: AnonymousClaim?

    /// A claim inside `outer` (the call's ``RequestContext/anonymousClaim``), if any.
    package init(inside outer: AnonymousClaim?) {
        self.outer = outer
    }

    /// Whether credentials were added after the step filed the request as anonymous.
    package var wasCredentialed: Bool { credentialed.current }

    /// Records that the request left with credentials.
    package func markCredentialed() {
        credentialed.withLock { $0 = true }
        outer?.markCredentialed()
    }

    /// Records that the request left with credentials if `request` carries a credential field or
    /// any field of the secret list (see ``Redaction/isCredential(header:)``).
    package func note(_ request: HTTPRequest, redaction: Redaction) {
        if request.headerFields.contains(where: { redaction.isCredential(header: $0.name) }) { markCredentialed() }
    }
}
