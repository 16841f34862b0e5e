extension Client.Configuration: CustomReflectable {
    /// Every field, with the values of secret default header fields and common query items hidden
    /// by the configuration's own ``redaction``: printing or `dump`ing a client never shows an API key.
    public var customMirror: Mirror {
        let query = commonQuery.map { item in
            QueryItem(name: item.name, value: redaction.isSecret(queryItem: item.name) ? "REDACTED" : item.value)
        }
        return Mirror(
            self,
            children: [
                "defaultHeaders": redaction.redact(defaultHeaders), "commonQuery": query, "decoder": decoder, "encoder": encoder,
                "parameterEncoder": parameterEncoder, "timeout": timeout, "maximumBodySize": maximumBodySize,
                "errorMessagePaths": errorMessagePaths, "responseValidator": responseValidator as Any,
                "coalescesIdenticalRequests": coalescesIdenticalRequests, "maximumRedirects": maximumRedirects,
                "allowsInsecureRedirects": allowsInsecureRedirects, "cachePolicy": cachePolicy, "telemetry": telemetry,
                "redaction": redaction,
            ],
            displayStyle: .struct)
    }
}
