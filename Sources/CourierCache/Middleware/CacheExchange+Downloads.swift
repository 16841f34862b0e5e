import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

extension CacheExchange {
    /// Stores a transfer's answer only when it is a download's whole `200`: the store's writer
    /// copies it from the file the download wrote, a chunk at a time, after the download has
    /// returned (the file is opened first, so moving it into place doesn't matter). A stream for
    /// its caller, a resumed download's `206` and other statuses pass through unstored.
    func storeDownload(_ response: HTTPResponse, _ body: HTTPBody?, selection: VarySelection, requestTime: Date) -> (HTTPResponse, HTTPBody?) {
        guard body == nil, response.status == .ok, let file = download?.wholeBodyFile else { return (response, body) }
        do {
            try store.enqueue(
                key: key, varySelection: selection, status: response.status.code, headers: rules.fieldsToStore(response.headerFields),
                bodyFile: file, requestTime: requestTime, responseTime: cache.clock)
        } catch {
            // Costs the download nothing; the copy's own failures are logged and counted by the store.
            store.logger.error("A download could not be copied into the cache", metadata: ["url": "\(key.url)", "error": "\(error)"])
        }
        return (response, body)
    }
}
