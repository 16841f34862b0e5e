@testable import Courier
import Foundation
import HTTPTypes
import Testing

/// The connectivity check runs only where the system can answer, and only fails a request the
/// system positively reported offline.
@Suite struct ConnectivityTests {
    @Test(arguments: Platform.allCases)
    func theMonitorIsAskedOnlyWhereItCanAnswer(platform: Platform) {
        let expected: Bool = switch platform {
        case .macOS, .iOS, .tvOS, .visionOS: true
        case .watchOS, .linux, .other: false
        }
        #expect(ConnectivityCheck.isAvailable(on: platform) == expected)
    }

    @Test func offlineFailsFastButNotForLoopback() async throws {
        let middleware = ConnectivityMiddleware(isKnownOffline: { true })
        let error = try #require(await #expect(throws: CourierError.self) {
            try await Self.send(through: middleware, to: "https://api.example.com")
        })
        #expect(error.kind == .noConnection)
        #expect(try await Self.send(through: middleware, to: "http://127.0.0.1:8080") == .ok)
        #expect(try await Self.send(through: middleware, to: "http://localhost:8080") == .ok)
        #expect(try await Self.send(through: middleware, to: "http://[::1]:8080") == .ok)
    }

    @Test func anOnlineOrUnknownPathPassesOn() async throws {
        #expect(try await Self.send(through: ConnectivityMiddleware(isKnownOffline: { false }), to: "https://api.example.com") == .ok)
    }

    /// Where the platform can't answer (this one, unless it is an Apple platform with a monitor), the
    /// public middleware passes every request on.
    @Test func withoutAMonitorEveryRequestPassesOn() async throws {
        guard !ConnectivityCheck.isAvailable(on: .current) else { return }
        #expect(try await Self.send(through: ConnectivityMiddleware(), to: "https://api.example.com") == .ok)
    }

    private static func send(through middleware: ConnectivityMiddleware, to base: String) async throws -> HTTPResponse.Status {
        let url = try #require(URL(string: base))
        let (response, _) = try await middleware.intercept(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/"), body: nil, baseURL: url, operationID: "Test"
        ) { _, _, _ in (HTTPResponse(status: .ok), nil) }
        return response.status
    }
}
