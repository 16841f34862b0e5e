import Foundation

/// Whose stored responses an ``HTTPCache`` listing or removal covers.
///
/// The cache keeps each user's responses apart (see ``HTTPCache``): a user's partition is named by
/// the identity of their `Credentials`.
public enum CachePartition: Sendable, Hashable {
    /// The responses of one signed-in user, by the identity of their `Credentials`.
    case user(String)
    /// The responses of calls made for nobody signed in.
    case anonymous
    /// The responses of requests that carried credentials of their own while no user was known:
    /// each set of credentials is kept apart by a keyed hash, and all of them are this case.
    case ownCredentials

    /// The partition a storage's partition name stands for.
    init(storageName name: String) {
        if name.isEmpty {
            self = .anonymous
        } else if name.hasPrefix(Self.userPrefix) {
            self = .user(Self.unescaped(name.dropFirst(Self.userPrefix.count)))
        } else {
            self = .ownCredentials
        }
    }

    /// The storage's name for this partition; nil for ``ownCredentials``, which is many.
    var storageName: String? {
        switch self {
        case .user(let identity): Self.userPrefix + Self.escaped(identity)
        case .anonymous: ""
        case .ownCredentials: nil
        }
    }

    /// Whether a variant stored under the partition name `name` belongs here.
    func contains(storageName name: String) -> Bool {
        CachePartition(storageName: name) == self
    }

    private static let userPrefix = "id:"

    /// `%` and NUL escaped, so no two identities share a name and a name holds no NUL (SQLite text
    /// parameters end at one: `a<NUL>b` would otherwise read, and clear, user `a`'s responses).
    private static func escaped(_ identity: String) -> String {
        identity.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\0", with: "%00")
    }

    /// The identity ``escaped(_:)`` made `name` from, read left to right.
    private static func unescaped(_ name: Substring) -> String {
        var identity = ""
        var rest = name[...]
        while let percent = rest.firstIndex(of: "%") {
            identity += rest[..<percent]
            let code = rest[percent...].prefix(3)
            identity += code == "%00" ? "\0" : code == "%25" ? "%" : String(code)
            rest = rest[code.endIndex...]
        }
        return identity + rest
    }
}
