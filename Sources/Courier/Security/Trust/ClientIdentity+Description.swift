/// A client identity prints, interpolates, reflects and `dump`s without its private key.
extension ClientIdentity: CustomStringConvertible, CustomReflectable {
    /// How many certificates it holds; the private key is never shown.
    public var description: String {
        "ClientIdentity(certificates: \(certificateChainPEM.count), privateKey: REDACTED)"
    }

    /// The certificates (public) and the key replaced, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["certificateChainPEM": certificateChainPEM, "privateKeyPEM": "REDACTED"], displayStyle: .struct)
    }
}
