/// The names of the metrics Courier records: OpenTelemetry's HTTP client conventions, and Courier's own.
package enum MetricName {
    /// Seconds from the start of a call to its response or error (a timer).
    package static let requestDuration = "http.client.request.duration"
    /// Calls in flight (a meter).
    package static let activeRequests = "http.client.active_requests"
    /// Request body bytes (a recorder).
    package static let requestBodySize = "http.client.request.body.size"
    /// Response body bytes (a recorder).
    package static let responseBodySize = "http.client.response.body.size"
    /// Calls the cache answered or missed, by `courier.cache.outcome` (a counter).
    package static let cacheRequests = "courier.cache.requests"
    /// Responses the cache stored (a counter).
    package static let cacheStored = "courier.cache.stored"
    /// Calls that went on without the cache's storage while it rested after failing (a counter).
    package static let cacheStorageSkipped = "courier.cache.storage_skipped"
    /// Bytes the cache removed to stay under its size limit (a counter).
    package static let cacheEvictedBytes = "courier.cache.evicted_bytes"
    /// Retries, by `courier.retry.reason` (a counter).
    package static let retries = "courier.retry.attempts"
    /// Token refreshes, by `courier.refresh.outcome`: `succeeded`, `failed`, `refused`, `joined` (a counter).
    package static let tokenRefreshes = "courier.token_refresh"
    /// GETs that joined an identical one in flight instead of going to the network (a counter).
    package static let coalescedRequests = "courier.coalesced_requests"
}
