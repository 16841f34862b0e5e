import Foundation

/// A named server (debug, staging, release…), so app code picks a base URL without `#if` in every file.
///
/// ```swift
/// extension ServerEnvironment {
///     static let staging = ServerEnvironment("staging", baseURL: "https://staging.example.com/api")
///     static let release = ServerEnvironment("release", baseURL: "https://api.example.com")
/// }
/// let env = ServerEnvironment.selected(from: [.staging, .release], default: .release)
/// let client = Client(baseURL: env.baseURL)
/// ```
public struct ServerEnvironment: Sendable, Hashable {
    /// The name, e.g. `staging`.
    public var name: String
    /// The base URL of every endpoint in this environment.
    public var baseURL: URL

    /// Creates an environment from a URL.
    public init(_ name: String, url: URL) {
        self.name = name
        self.baseURL = url
    }

    /// Creates an environment from a literal URL written in code.
    ///
    /// A literal that is not a URL is a programmer error and stops the program at the first use.
    public init(_ name: String, baseURL: StaticString) {
        guard let url = URL(string: "\(baseURL)"), url.scheme != nil else {
            preconditionFailure("ServerEnvironment \(name): '\(baseURL)' is not an absolute URL")
        }
        self.init(name, url: url)
    }

    /// The environment named by a process environment variable (default `COURIER_ENVIRONMENT`),
    /// or `fallback` when it is unset or names none of `environments`.
    public static func selected(
        from environments: [ServerEnvironment],
        variable: String = "COURIER_ENVIRONMENT",
        processEnvironment: [String: String] = ProcessInfo.processInfo.environment,
        default fallback: ServerEnvironment
    ) -> ServerEnvironment {
        guard let wanted = processEnvironment[variable] else { return fallback }
        return environments.first { $0.name == wanted } ?? fallback
    }
}
