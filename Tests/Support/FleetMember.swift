import Courier
import Foundation

/// What a server of the PostgreSQL fleet tests calls and as whom, in the test process and in the
/// `courier-cache-peer` process alike.
package enum FleetMember {
    /// `GET` of a path as bytes, under the cache's HTTP rules.
    package struct Page: Endpoint {
        package typealias Response = Data
        package var path: EndpointPath
        package var cachePolicy: CachePolicy? { .followHTTP }

        package init(path: EndpointPath) { self.path = path }
    }

    /// A signed-in user with a bearer token of their own, or nobody for `-`.
    package struct User: CredentialProvider {
        package let name: String

        package init(_ name: String) { self.name = name }

        package func currentCredentials() async -> Credentials? {
            name == "-" ? nil : .bearer("token-of-\(name)", identity: name)
        }
    }
}
