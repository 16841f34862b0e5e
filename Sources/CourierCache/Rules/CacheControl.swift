import HTTPTypes

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2), parsed leniently.
///
/// All field lines are combined, names are case-insensitive and quoted values are unquoted.
///
/// Choices where RFC 9111 leaves room (§4.2.1, §5.2):
/// - A duration that is not plain delta-seconds — `max-age=1.5`, `max-age=abc`, `max-age=-1`, or
///   spaces around `=` as in `max-age = 60` — is ignored, as if the directive were absent.
/// - A directive that restricts caching (`no-store`, `no-cache`, `private`, …) counts even when its
///   value is malformed; a malformed field list then counts as no list (the whole response).
/// - Of several `max-age` (or `s-maxage`) directives the first valid one counts, one of the two
///   answers RFC 9111 §4.2.1 allows (the other: treat the response as stale). Of other repeated
///   directives the most restrictive value wins: the smallest `max-stale`, `stale-if-error` and
///   `stale-while-revalidate`, the largest `min-fresh`.
///
/// Unknown directives are ignored. Durations are in seconds.
package struct CacheControl: Sendable, Hashable {
    /// `max-age`: the freshness lifetime (response) or the maximum acceptable age (request).
    package var maxAge: Int?
    /// `s-maxage`: parsed for completeness; a private cache ignores it.
    package var sharedMaxAge: Int?
    /// `no-store`: the message must not be stored.
    package var noStore = false
    /// `no-cache` without field names: a stored response must be revalidated before use.
    package var noCache = false
    /// The lowercased field names of `no-cache="…"`: stored without them, the rest may be served.
    package var noCacheFieldNames: Set<String> = []
    /// `must-revalidate`: once stale, the response must never be served without revalidation.
    package var mustRevalidate = false
    /// `proxy-revalidate`: parsed for completeness; applies to shared caches only.
    package var proxyRevalidate = false
    /// `must-understand`: store only when the cache implements the status code's caching rules.
    package var mustUnderstand = false
    /// `private` (with or without a field list): storable by a private cache such as this one.
    package var isPrivate = false
    /// The lowercased field names of `private="…"`: this cache stores the response without them.
    package var privateFieldNames: Set<String> = []
    /// `public`: storable even when the status code is not cacheable by default.
    package var isPublic = false
    /// `immutable` (RFC 8246): the content never changes while fresh.
    package var immutable = false
    /// `stale-if-error` (RFC 5861): seconds past staleness the response may serve on errors.
    package var staleIfError: Int?
    /// `stale-while-revalidate` (RFC 5861): seconds past staleness the response may serve while revalidating.
    package var staleWhileRevalidate: Int?
    /// Request `min-fresh`: the response must stay fresh for at least this long.
    package var minFresh: Int?
    /// Request `max-stale`: the client accepts this much staleness; ``unlimited`` when given without a value.
    package var maxStale: Int?
    /// Request `only-if-cached`: answer from the cache or fail with 504, never use the network.
    package var onlyIfCached = false

    /// The `maxStale` value of a `max-stale` directive written without a number.
    package static let unlimited = Int.max

    /// Creates an empty set of directives.
    package init() {}

    /// Parses every `Cache-Control` field line of `fields` (response semantics, no `Pragma`).
    package init(_ fields: HTTPFields) {
        self.init(values: fields[values: .cacheControl])
    }

    /// Parses one or more raw `Cache-Control` field values.
    package init(values: [String]) {
        self.init()
        for element in FieldList.elements(values) {
            // `max-age = 60` is not the grammar (no spaces around `=`): its value is unusable.
            apply(FieldList.directive(element), malformed: FieldList.hasSpaceAroundEquals(element))
        }
    }

    /// Parses the directives of a request, honouring `Pragma: no-cache` when no `Cache-Control` is present.
    package init(request fields: HTTPFields) {
        self.init(fields)
        guard fields[values: .cacheControl].isEmpty, let pragma = HTTPField.Name.pragma else { return }
        let pragmas = FieldList.elements(fields[values: pragma]).map { FieldList.directive($0).name }
        if pragmas.contains("no-cache") { noCache = true }
    }

    private mutating func apply(_ directive: (name: String, value: String?), malformed: Bool) {
        let seconds = malformed ? nil : FieldList.deltaSeconds(directive.value)
        switch directive.name {
        // RFC 9111 §4.2.1 allows the first or "stale": the first keeps a usable response cached, as `Age` reads its first member.
        case "max-age": if let seconds, maxAge == nil { maxAge = seconds }
        case "s-maxage": if let seconds, sharedMaxAge == nil { sharedMaxAge = seconds }
        case "no-store": noStore = true
        case "no-cache":
            if let names = Self.fieldNames(directive.value, malformed: malformed) {
                noCacheFieldNames.formUnion(names)
            } else {
                noCache = true
            }
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "must-understand": mustUnderstand = true
        case "private":
            isPrivate = true
            if let names = Self.fieldNames(directive.value, malformed: malformed) { privateFieldNames.formUnion(names) }
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

    /// The lowercased names of a `no-cache="…"` / `private="…"` list; `nil` when there is no usable list.
    private static func fieldNames(_ value: String?, malformed: Bool) -> Set<String>? {
        guard !malformed, let value else { return nil }
        let names = FieldList.elements(value).map { $0.lowercased() }
        guard !names.isEmpty, names.allSatisfy({ HTTPField.Name($0) != nil }) else { return nil }
        return Set(names)
    }

    private static func smallest(_ current: Int?, _ new: Int) -> Int {
        current.map { min($0, new) } ?? new
    }
}
