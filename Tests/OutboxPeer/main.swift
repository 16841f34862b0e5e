import Courier
import CourierAsyncHTTPClient
import CourierOutbox
import CourierTestSupport
import Foundation

// An app that keeps writes in an outbox, for the outbox's crash tests: a process of its own that
// the test kills with SIGKILL, then starts again to finish the work.
//
//     courier-outbox-peer ORIGIN FOLDER TRANSPORT enqueue N STOP K → enqueues writes 0..<N,
//         printing "enqueued I" after each returns; with STOP `afterAnswer`, prints "answered K"
//         when the server has answered write K and waits there to be killed
//     courier-outbox-peer ORIGIN FOLDER TRANSPORT resume        → sends what is left, prints "done"
//
// Lines go out unbuffered (`write(2)`), so the test sees each before it kills.

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 5, let origin = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: courier-outbox-peer ORIGIN FOLDER TRANSPORT enqueue N STOP | resume\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[2])
let transport: any ClientTransport = arguments[3] == "urlSession" ? URLSessionTransport() : AsyncHTTPClientTransport()
let client = Client(baseURL: origin, transport: transport)
let stopsAfterAnswer = arguments.count >= 8 && arguments[6] == OutboxCrash.Stop.afterAnswer.rawValue
let stopAt = arguments.count >= 8 ? Int64(arguments[7]) ?? 0 : 0
let outbox = try Outbox(
    client: client, folder: folder, backoff: Outbox.Backoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200)),
    clock: ContinuousClock(),
    beforeRemoval: { item in
        // Items are numbered from 1 in a fresh outbox: write K is item K + 1.
        guard stopsAfterAnswer, item.id.rawValue == stopAt + 1 else { return }
        say("answered \(stopAt)")
        try? await Task.sleep(for: .seconds(3600))
    })

switch arguments[4] {
case "enqueue":
    let count = arguments.count >= 6 ? Int(arguments[5]) ?? 1 : 1
    for number in 0 ..< count {
        try await outbox.enqueue(OutboxCrash.Write(number: number))
        say("enqueued \(number)")
    }
case "resume":
    await outbox.resume()
default:
    exit(2)
}
while try await !outbox.items().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
say("done")
