// The completion-handler, stream and Combine faces of a call.
//
// Runs against an in-process MockServer: `swift run Callbacks`.

// snippet.hide
import CourierTesting
import Dispatch

let server = try await MockServer.start()
server.route("GET", "/feed", respond: .json(#"["hello"]"#))
let api = server.baseURL
// snippet.show
import Courier
import CourierCallbacks
import CourierCombine
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

struct Feed: Endpoint {
    typealias Response = [String]
    var path: EndpointPath { "/feed" }
}
let client = Client(baseURL: api)

// snippet.callback
// The completion handler runs exactly once, on the queue you choose (main by default on
// Apple platforms); the handle cancels, and a cancelled call reports `cancelled` at once.
let call = client.send(Feed(), queue: .main) { result in
    switch result {
    case .success(let feed): print(feed)
    case .failure(let error): print(error.errorDescription ?? "")
    }
}
// later, when the screen goes away:
call.cancel()
// snippet.end

// snippet.stream
// A stream delivers the cached value first, then the network's (with a two-value cache
// policy), then finishes; without a cache it delivers the network's value once.
func watch() async throws {
    for try await update in client.updates(for: Feed(), cachePolicy: .useCacheAndRequest) {
        print(update.value, update.source)
    }
}
// snippet.end

// snippet.combine
// The same as a Combine publisher (OpenCombine on Linux): next, next, then finished or an error.
// Values arrive on a background queue: add `.receive(on: DispatchQueue.main)` to update a UI.
func subscribe(to client: Client) -> AnyCancellable {
    client.publisher(for: Feed(), cachePolicy: .useCacheAndRequest)
        .map(\.value)
        .sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { print(error.family) }
            },
            receiveValue: { feed in print(feed) }
        )
}
let subscription = subscribe(to: client)
// later, when the screen goes away:
subscription.cancel()
// snippet.end

// snippet.hide
try await watch()
let delivered: [String] = try await withCheckedThrowingContinuation { continuation in
    client.send(Feed(), queue: .global()) { continuation.resume(with: $0) }
}
precondition(delivered == ["hello"])
try await server.shutdown()
