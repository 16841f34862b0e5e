import CourierTestSupport
@testable import CourierTesting
import Foundation
import NIOCore
import Testing

/// A down server keeps its port, so no other test's server bound to port 0 answers in its place
/// (a request meant to be refused would get another server's answer).
@Suite struct PortHoldTests {
    /// The connections `goDown()` closes linger in TIME_WAIT on the server's port: the port is
    /// held all the same.
    @Test func aServerThatClosedConnectionsStillHoldsItsPortWhileDown() async throws {
        try await withServer { server in
            server.route("GET", "/ping", respond: .text("pong"))
            let open = try await RawConnection.connect(port: server.port)
            _ = try await open.exchange(rawRequest("GET", "/ping"))
            try await server.goDown()
            #expect(try await open.wait(timeout: .seconds(60)).ending != nil)
            #expect(server.core.holdsPort)
            let error = await #expect(throws: IOError.self) { _ = try await RawConnection.connect(port: server.port) }
            #expect(error?.errnoCode == ECONNREFUSED)
            try await server.comeUp()
            #expect(!server.core.holdsPort)
            #expect(try #require(try await fetch(server, rawRequest("GET", "/ping")).responses.first).bodyText == "pong")
        }
    }
}
