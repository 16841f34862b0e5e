@testable import Courier
import Foundation
import FuzzSupport

/// Response bodies: the server's message in an error body, the untyped JSON view, and the two
/// envelope shapes. Any bytes give a value or a thrown error, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let body = Data(input.bytes)
    if let message = ServerMessage.extract(from: body, paths: Client.Configuration().errorMessagePaths), message.isEmpty {
        fuzzFailure("an empty server message")
    }
    if let json = try? JSON(data: body) {
        _ = json[path: "data.members.0.name"]
        _ = json["status"]?.string
        _ = json["message"]?.string
    }
    let decoder = JSONDecoder()
    _ = (try? decoder.decode(CodeMessageEnvelope<JSON>.self, from: body))?.payload()
    _ = (try? decoder.decode(StatusMessageEnvelope<JSON>.self, from: body))?.payload()
    _ = CourierError(.server, detail: "fuzz", body: body).bodySnippet
    return 0
}
