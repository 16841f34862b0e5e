import OpenAPIRuntime

/// Where a successful response's body goes at the client's edge.
enum BodyDestination: Sendable {
    /// Gathered in memory to decode, within the size limit.
    case memory
    /// Streamed into a file.
    case file(FileDownload)
    /// Handed to the caller as it arrives.
    case caller

    /// Whether the body bypasses memory (and so coalescing, the size limit and the response validator).
    var isTransfer: Bool {
        if case .memory = self { false } else { true }
    }
}

extension HTTPBody {
    /// The announced length, if any.
    var knownLength: Int64? {
        if case .known(let length) = length { length } else { nil }
    }
}
