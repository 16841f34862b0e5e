import HTTPTypes
import NIOHTTP1

extension RecordedRequest {
    /// Builds a record from a NIO request head, keeping repeated fields and skipping invalid names.
    init(head: HTTPRequestHead, body: [UInt8], digest: BodyDigest, connectionID: Int) {
        var fields = HTTPFields()
        for (name, value) in head.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        self.init(method: head.method.rawValue, target: head.uri, headers: fields, body: body, digest: digest, connectionID: connectionID)
    }
}
