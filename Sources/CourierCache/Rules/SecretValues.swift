import Courier
import HTTPTypes

/// How a cache keeps the values of a request's credential fields and secret query items (see
/// `Redaction`): as keyed hashes, never in clear. Equal values still select the same stored
/// response, the same key and the same partition.
package struct SecretValues: Sendable, Hashable {
    let hmac: HMAC
    let redaction: Redaction

    package init(hmac: HMAC, redaction: Redaction) {
        self.hmac = hmac
        self.redaction = redaction
    }

    /// The value to keep for a field: its keyed hash when the field carries credentials, else itself.
    package func kept(_ value: String, of name: HTTPField.Name) -> String {
        redaction.isCredential(header: name) ? "hmac:" + hmac.hex(value) : value
    }

    /// The partition of a request that carries credential fields of its own (`h:` and their keyed
    /// hash); nil when it carries none.
    package func partition(of fields: HTTPFields) -> String? {
        let values = redaction.credentialValues(in: fields)
        return values.isEmpty ? nil : "h:" + hmac.hex(values.joined(separator: "\n"))
    }

    /// A key's URL with the value of each secret query item as its keyed hash (`hmac:` and the hex).
    package func keyURL(_ url: String) -> String {
        redaction.replacingSecretQueryValues(in: url) { "hmac:" + hmac.hex(String($0)) }
    }
}
