/// The names of the metrics Courier records: OpenTelemetry's HTTP client conventions, and Courier's own.
public enum MetricName {
    /// Seconds from the start of a call to its response or error (a timer).
    public static let requestDuration = "http.client.request.duration"
    /// Calls in flight (a meter).
    public static let activeRequests = "http.client.active_requests"
    /// Request body bytes (a recorder).
    public static let requestBodySize = "http.client.request.body.size"
    /// Response body bytes (a recorder).
    public static let responseBodySize = "http.client.response.body.size"
    /// Calls the cache answered or missed, by `courier.cache.outcome` (a counter).
    public static let cacheRequests = "courier.cache.requests"
    /// Responses the cache stored (a counter).
    public static let cacheStored = "courier.cache.stored"
    /// Bytes the cache removed to stay under its size limit (a counter).
    public static let cacheEvictedBytes = "courier.cache.evicted_bytes"
    /// Retries, by `courier.retry.reason` (a counter).
    public static let retries = "courier.retry.attempts"
    /// Token refreshes, by `courier.refresh.outcome`: `succeeded`, `failed`, `refused`, `joined` (a counter).
    public static let tokenRefreshes = "courier.token_refresh"
    /// GETs that joined an identical one in flight instead of going to the network (a counter).
    public static let coalescedRequests = "courier.coalesced_requests"
}
