import HTTPTypes

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2), parsed leniently.
///
/// All field lines are combined, names are case-insensitive, quoted values are unquoted and
/// unknown or malformed directives are ignored. When a directive appears twice, the most
/// restrictive value wins (the smallest `max-age`, the largest `min-fresh`, …). An invalid
/// `max-age` / `s-maxage` value counts as `0` — stale, never fresh. Durations are in seconds.
public struct CacheControl: Sendable, Hashable {
    /// `max-age`: the freshness lifetime (response) or the maximum acceptable age (request).
    public var maxAge: Int?
    /// `s-maxage`: parsed for completeness; a private cache ignores it.
    public var sharedMaxAge: Int?
    /// `no-store`: the message must not be stored.
    public var noStore = false
    /// `no-cache` (with or without a field list): a stored response must be revalidated before use.
    public var noCache = false
    /// `must-revalidate`: once stale, the response must never be served without revalidation.
    public var mustRevalidate = false
    /// `proxy-revalidate`: parsed for completeness; applies to shared caches only.
    public var proxyRevalidate = false
    /// `private` (with or without a field list): storable by a private cache such as this one.
    public var isPrivate = false
    /// `public`: storable even when the status code is not cacheable by default.
    public var isPublic = false
    /// `immutable` (RFC 8246): the content never changes while fresh.
    public var immutable = false
    /// `stale-if-error` (RFC 5861): seconds past staleness the response may serve on errors.
    public var staleIfError: Int?
    /// `stale-while-revalidate` (RFC 5861): seconds past staleness the response may serve while revalidating.
    public var staleWhileRevalidate: Int?
    /// Request `min-fresh`: the response must stay fresh for at least this long.
    public var minFresh: Int?
    /// Request `max-stale`: the client accepts this much staleness; ``unlimited`` when given without a value.
    public var maxStale: Int?
    /// Request `only-if-cached`: answer from the cache or fail with 504, never use the network.
    public var onlyIfCached = false

    /// The `maxStale` value of a `max-stale` directive written without a number.
    public static let unlimited = Int.max

    /// Creates an empty set of directives.
    public init() {}

    /// Parses every `Cache-Control` field line of `fields` (response semantics, no `Pragma`).
    public init(_ fields: HTTPFields) {
        self.init(values: fields[values: .cacheControl])
    }

    /// Parses one or more raw `Cache-Control` field values.
    public init(values: [String]) {
        guard !values.isEmpty else {
            self.init()
            return
        }
        self = Self.parsed.value(for: values) { values in
            var directives = CacheControl()
            for element in FieldList.elements(values) {
                directives.apply(FieldList.directive(element))
            }
            return directives
        }
    }

    /// Parses of the values seen lately: a stored response's directives are read on every hit.
    private static let parsed = BoundedMemo<[String], CacheControl>()

    /// Parses the directives of a request, honouring `Pragma: no-cache` when no `Cache-Control` is present.
    public init(request fields: HTTPFields) {
        self.init(fields)
        guard fields[values: .cacheControl].isEmpty, let pragma = HTTPField.Name.pragma else { return }
        let pragmas = FieldList.elements(fields[values: pragma]).map { FieldList.directive($0).name }
        if pragmas.contains("no-cache") { noCache = true }
    }

    private mutating func apply(_ directive: (name: String, value: String?)) {
        let seconds = FieldList.deltaSeconds(directive.value)
        switch directive.name {
        case "max-age": maxAge = Self.smallest(maxAge, seconds ?? 0)
        case "s-maxage": sharedMaxAge = Self.smallest(sharedMaxAge, seconds ?? 0)
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "private": isPrivate = true
        case "public": isPublic = true
        case "immutable": immutable = true
        case "only-if-cached": onlyIfCached = true
        case "stale-if-error": if let seconds { staleIfError = Self.smallest(staleIfError, seconds) }
        case "stale-while-revalidate":
            if let seconds { staleWhileRevalidate = Self.smallest(staleWhileRevalidate, seconds) }
        case "min-fresh": if let seconds { minFresh = max(minFresh ?? 0, seconds) }
        case "max-stale":
            if directive.value == nil {
                maxStale = Self.smallest(maxStale, Self.unlimited)
            } else if let seconds {
                maxStale = Self.smallest(maxStale, seconds)
            }
        default: break
        }
    }

    private static func smallest(_ current: Int?, _ new: Int) -> Int {
        current.map { min($0, new) } ?? new
    }
}
