import Courier

/// How a call's identity is kept in an item's row.
extension OutboxStore {
    /// `user:NAME`, `anonymous`, or NULL for a call that sends no credentials.
    static func column(_ identity: CallIdentity?) -> String? {
        switch identity {
        case .user(let name)?: "user:" + name
        case .anonymous?: "anonymous"
        case .unknown?, nil: nil
        }
    }

    static func identity(_ column: String?) -> CallIdentity? {
        guard let column else { return nil }
        if column.hasPrefix("user:") { return .user(String(column.dropFirst(5))) }
        return .anonymous
    }

    static func name(_ identity: CallIdentity?) -> String? {
        if case .user(let name)? = identity { name } else { nil }
    }
}
