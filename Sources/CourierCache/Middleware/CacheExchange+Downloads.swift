import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

extension CacheExchange {
    /// Stores a transfer's answer only when it is a download's whole `200`, copied from the file
    /// the download wrote a chunk at a time, before the download returns (as OkHttp's cache writes
    /// while its caller reads). A stream for its caller, a resumed download's `206` and other
    /// statuses pass through unstored. A failed copy costs the download nothing.
    func storeDownload(_ response: HTTPResponse, _ body: HTTPBody?, selection: VarySelection, requestTime: Date) async -> Answer {
        guard body == nil, response.status == .ok, let file = download?.wholeBodyFile else { return Answer(response: response, body: body) }
        do {
            await store(storable(response, selection: selection, requestTime: requestTime), body: try .file(file))
        } catch {
            cache.logger.error("A download could not be stored", metadata: ["url": loggedURL, "error": logged(error)])
        }
        return Answer(response: response, body: body)
    }
}
