import HTTPTypes

/// What a response to `HEAD` does to a stored `GET` response of the same URL; see ``CacheRules/outcome(ofHead:for:storedBodySize:)``.
package enum HeadOutcome: Sendable, Hashable {
    /// Replace the stored header fields with these (and the entry's times with the `HEAD`'s); keep the body.
    case update(HTTPFields)
    /// Remove the stored response: the `HEAD` shows it no longer describes the resource.
    case invalidate
    /// Leave the stored response as it is: the `HEAD` answer says nothing about it.
    case keep
}
