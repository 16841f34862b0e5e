import Foundation
import OpenAPIRuntime

/// Reads a whole body into memory, failing with ``CourierError/Kind/bodyTooLarge`` past `limit` bytes.
func collectBody(_ body: HTTPBody?, limit: Int) async throws -> Data {
    guard let body else { return Data() }
    var data = Data()
    if case .known(let length) = body.length {
        guard length <= limit else { throw tooLarge(limit, announced: length) }
        data.reserveCapacity(Int(length))
    }
    for try await chunk in body {
        guard data.count + chunk.count <= limit else { throw tooLarge(limit, announced: nil) }
        data.append(contentsOf: chunk)
    }
    return data
}

private func tooLarge(_ limit: Int, announced: Int64?) -> CourierError {
    let size = announced.map { "\($0) bytes" } ?? "more"
    return CourierError(.bodyTooLarge, detail: "The response body (\(size)) exceeds the limit of \(limit) bytes")
}
