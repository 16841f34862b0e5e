import Courier
import Foundation
import HTTPTypes

/// What a server of the PostgreSQL fleet tests calls and as whom, in the test process and in the
/// `courier-cache-peer` process alike.
package enum FleetMember {
    /// `GET` of a path as bytes, under the cache's HTTP rules.
    package struct Page: Endpoint {
        package typealias Response = Data
        package var path: EndpointPath
        /// An `X-Request-Id` of its own, as a backend's calls carry (the cache key ignores it).
        package var requestID: String?
        package var cachePolicy: CachePolicy? { .followHTTP }
        package var headers: HTTPFields {
            guard let requestID, let name = HTTPField.Name("X-Request-Id") else { return [:] }
            return [name: requestID]
        }

        package init(path: EndpointPath, requestID: String? = nil) {
            self.path = path
            self.requestID = requestID
        }
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
