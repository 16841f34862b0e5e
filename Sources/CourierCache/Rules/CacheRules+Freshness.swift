import Courier
import Foundation
import HTTPTypes

extension CacheRules {
    /// The freshness lifetime of a response, in seconds (RFC 9111 §4.2.1).
    ///
    /// For a shared cache `s-maxage` wins over all; `max-age` wins over `Expires − Date`, which wins over the heuristic (a fraction of
    /// `Date − Last-Modified`, capped, only for statuses cacheable by default or `public`
    /// responses). An `Expires` that is not exactly one IMF-fixdate, RFC 850 or asctime date (such
    /// as `0`, `UTC` instead of `GMT`, or two `Expires` lines) means already expired (RFC 9111
    /// §5.3). A missing or invalid `Date` is replaced by `responseTime`.
    package func freshnessLifetime(of response: HTTPResponse, responseTime: Date) -> TimeInterval {
        let fields = response.headerFields
        let directives = CacheControl(fields)
        if isShared, let sharedMaxAge = directives.sharedMaxAge { return TimeInterval(sharedMaxAge) }
        if let maxAge = directives.maxAge { return TimeInterval(maxAge) }
        let date = Self.date(of: .date, in: fields) ?? responseTime
        let expiresValues = fields[values: .expires]
        if !expiresValues.isEmpty {
            // Exactly one line in one of the three HTTP-date forms; anything else is already expired.
            guard expiresValues.count == 1, let expires = HTTPDate.parseExact(expiresValues[0]) else { return 0 }
            return max(0, expires.timeIntervalSince(date))
        }
        guard Self.heuristicallyCacheableStatuses.contains(response.status.code) || directives.isPublic,
              let lastModified = Self.date(of: .lastModified, in: fields)
        else { return 0 }
        let heuristic = date.timeIntervalSince(lastModified) * heuristicFraction
        return min(max(0, heuristic), maximumHeuristicLifetime)
    }

    /// The current age of a stored response at `now`, in seconds (RFC 9111 §4.2.3).
    ///
    /// `apparent_age = max(0, response_time − Date)`, `corrected_age = Age + (response_time −
    /// request_time)`, `initial = max(apparent, corrected)`, `current = initial + (now − response_time)`.
    /// `Age` is read from its first member only (several lines or a list, RFC 9111 §5.1); when that
    /// is not delta-seconds (`old`, `-5`, `1.5`), it is ignored as if absent, as §5.1 asks.
    package func currentAge(of stored: StoredResponse, now: Date) -> TimeInterval {
        let fields = stored.response.headerFields
        let date = Self.date(of: .date, in: fields) ?? stored.responseTime
        let ageValue = Self.ageValue(of: fields)
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(date))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let correctedAgeValue = TimeInterval(ageValue) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        return correctedInitialAge + residentTime
    }

    /// How long past its freshness lifetime the stored response is at `now` (0 while fresh).
    package func staleness(of stored: StoredResponse, now: Date) -> TimeInterval {
        max(0, currentAge(of: stored, now: now) - freshnessLifetime(of: stored.response, responseTime: stored.responseTime))
    }

    /// Whether the stored response is fresh at `now` (lifetime strictly greater than age).
    package func isFresh(_ stored: StoredResponse, now: Date) -> Bool {
        freshnessLifetime(of: stored.response, responseTime: stored.responseTime) > currentAge(of: stored, now: now)
    }

    /// The stored response ready to serve: its `Age` header set to the current age (whole seconds).
    package func servedResponse(for stored: StoredResponse, now: Date) -> HTTPResponse {
        var response = stored.response
        let age = currentAge(of: stored, now: now)
        let seconds = age.isFinite ? Int(min(max(0, age), TimeInterval(FieldList.deltaSecondsCap)).rounded(.down)) : 0
        response.headerFields[.age] = String(seconds)
        return response
    }

    /// The `Age` value in seconds: its first member; 0 when absent, empty or invalid (RFC 9111 §5.1).
    static func ageValue(of fields: HTTPFields) -> Int {
        guard let first = FieldList.elements(fields[values: .age]).first else { return 0 }
        // An invalid Age says nothing about the response's age, so it counts as no Age at all.
        return FieldList.deltaSeconds(String(first)) ?? 0
    }

    /// The first line of a date field, parsed; `nil` when absent or invalid.
    static func date(of name: HTTPField.Name, in fields: HTTPFields) -> Date? {
        fields[values: name].first.flatMap(HTTPDate.parse)
    }
}
