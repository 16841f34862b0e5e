import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

extension ResilienceTests {
    /// The retry middleware run through a real client, with a manual clock instead of sleeping.
    @Suite(.timeLimit(.minutes(10))) struct RetryMiddlewareTests {
        let clock = ManualClock()
        let attempts = Signal()

        /// A client whose transport answers attempt `n` with `script(n)`.
        func client(
            policy: RetryPolicy,
            before: [any ClientMiddleware] = [],
            _ script: @escaping @Sendable (Int) throws -> (HTTPResponse, HTTPBody?)
        ) -> Client {
            let attempts = attempts
            let transport = ClosureTransport { _, _ in try script(attempts.increment()) }
            return ResilienceTests.client(transport, middlewares: before + [RetryMiddleware(policy: policy, clock: clock)])
        }

        @Test func retriesUntilSuccess() async throws {
            let client = client(policy: RetryPolicy().jitter(0)) { attempt in
                ClosureTransport.respond(attempt < 3 ? .serviceUnavailable : .ok, body: "done")
            }
            let response = try await client.response(for: Call())
            #expect(response.value == Data("done".utf8))
            #expect(response.attempts == 3)
            #expect(attempts.count == 3)
        }

        @Test func returnsTheLastResponseAfterTheLastAttempt() async throws {
            let client = client(policy: RetryPolicy(maximumAttempts: 4).jitter(0)) { attempt in
                ClosureTransport.respond(.badGateway, body: "attempt \(attempt)")
            }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(error.status == .badGateway)
            #expect(error.bodySnippet == "attempt 4")
            #expect(attempts.count == 4)
        }

        @Test func waitsFollowTheBackoffScheduleOnTheClock() async throws {
            let policy = RetryPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(10)).jitter(1)
            let client = client(policy: policy) { _ in ClosureTransport.respond(.serviceUnavailable) }
            let call = Task { try await client.send(Call()) }

            await clock.waitForSleepers()
            #expect(attempts.count == 1)
            #expect(clock.pendingDeadlines == [.init(offset: .seconds(1))])
            clock.advance(by: .milliseconds(999))
            #expect(clock.pendingDeadlines.count == 1, "still waiting just before the deadline")
            clock.advance(by: .milliseconds(1))

            await clock.waitForSleepers()
            #expect(attempts.count == 2)
            #expect(clock.pendingDeadlines == [.init(offset: .seconds(3))])
            clock.advance(by: .seconds(2))

            let error = try #require(await #expect(throws: CourierError.self) { try await call.value })
            #expect(error.status == .serviceUnavailable)
            #expect(attempts.count == 3)
            #expect(clock.sleeps == [.seconds(1), .seconds(2)])
        }

        @Test func honoursRetryAfter() async throws {
            let policy = RetryPolicy(baseDelay: .seconds(1)).jitter(1)
            let client = client(policy: policy) { attempt in
                attempt == 1 ? ClosureTransport.respond(.tooManyRequests, [.retryAfter: "7"]) : ClosureTransport.respond(.ok)
            }
            let call = Task { try await client.response(for: Call()) }
            await clock.waitForSleepers()
            #expect(clock.pendingDeadlines == [.init(offset: .seconds(7))])
            clock.advance(by: .seconds(7))
            let response = try await call.value
            #expect(response.attempts == 2)
            #expect(clock.sleeps == [.seconds(7)])
        }

        @Test func returnsTheResponseWhenRetryAfterIsTooLong() async throws {
            let client = client(policy: RetryPolicy(maximumRetryAfter: .seconds(20))) { _ in
                ClosureTransport.respond(.serviceUnavailable, [.retryAfter: "3600"])
            }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(error.status == .serviceUnavailable)
            #expect(error.responseHeaders?[.retryAfter] == "3600")
            #expect(attempts.count == 1)
            #expect(clock.sleeps.isEmpty)
        }

        @Test func doesNotRetryPost() async throws {
            let client = client(policy: RetryPolicy().jitter(0)) { _ in ClosureTransport.respond(.serviceUnavailable) }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call(.post, body: .text("x"))) })
            #expect(error.status == .serviceUnavailable)
            #expect(attempts.count == 1)
        }

        @Test func retriesPostWhenTheEndpointOptsIn() async throws {
            let client = client(policy: RetryPolicy().jitter(0)) { attempt in
                ClosureTransport.respond(attempt == 1 ? .serviceUnavailable : .created)
            }
            let response = try await client.response(for: Call(.post, idempotent: true, body: .text("x")))
            #expect(response.attempts == 2)
        }

        @Test func doesNotRetryABodyThatCanBeSentOnlyOnce() async throws {
            let client = client(policy: RetryPolicy().jitter(0), before: [SingleUseBodyMiddleware()]) { _ in
                ClosureTransport.respond(.serviceUnavailable)
            }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call(.put, body: .text("x"))) })
            #expect(error.status == .serviceUnavailable)
            #expect(attempts.count == 1)
        }

        @Test(arguments: [CourierError.Kind.connectionLost, .noConnection, .timedOut])
        func retriesTemporaryErrorsAndThrowsTheLast(kind: CourierError.Kind) async throws {
            let client = client(policy: RetryPolicy().jitter(0)) { attempt in
                throw CourierError(kind, detail: "attempt \(attempt)")
            }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(error.kind == kind)
            #expect(error.detail == "attempt 3")
            #expect(attempts.count == 3)
        }

        /// In a generated client the transport's error reaches the middleware inside a `ClientError`.
        @Test func retriesATemporaryErrorWrappedByAGeneratedClient() async throws {
            let client = client(policy: RetryPolicy().jitter(0)) { attempt in
                guard attempt < 3 else { return ClosureTransport.respond(.ok, body: "done") }
                throw ClientError(
                    operationID: "getFeed", operationInput: "", request: nil, requestBody: nil, baseURL: nil,
                    response: nil, responseBody: nil, causeDescription: "Transport threw an error.",
                    underlyingError: CourierError(.connectionLost, detail: "attempt \(attempt)")
                )
            }
            let response = try await client.response(for: Call())
            #expect(response.value == Data("done".utf8))
            #expect(attempts.count == 3)
        }

        @Test(arguments: [CourierError.Kind.transport, .invalidResponse])
        func doesNotRetryOtherErrors(kind: CourierError.Kind) async throws {
            let client = client(policy: RetryPolicy().jitter(0)) { _ in throw CourierError(kind, detail: "final") }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(error.kind == kind)
            #expect(attempts.count == 1)
        }

        @Test func cancellationDuringBackoffEndsTheCallAtOnce() async throws {
            let client = client(policy: RetryPolicy(baseDelay: .seconds(5)).jitter(1)) { _ in
                ClosureTransport.respond(.serviceUnavailable)
            }
            let call = Task { try await client.send(Call()) }
            await clock.waitForSleepers()
            call.cancel()
            let error = try #require(await #expect(throws: CourierError.self) { try await call.value })
            #expect(error.kind == .cancelled)
            #expect(attempts.count == 1)
            #expect(clock.now == .init(offset: .zero), "the call ended without the clock moving")
        }

        @Test func stopsAtTheTotalDeadlineAndBoundsTheLastAttempt() async throws {
            let timeouts = Locked<[Duration]>([])
            let clock = clock
            let policy = RetryPolicy(maximumAttempts: 5, totalDeadline: .seconds(10)).jitter(0)
            let attempts = attempts
            let transport = ClosureTransport { _, _ in
                attempts.increment()
                timeouts.withLock { $0.append(RequestContext.current?.timeout ?? .zero) }
                clock.advance(by: .seconds(6))  // each attempt takes 6 s
                return ClosureTransport.respond(.gatewayTimeout)
            }
            let client = ResilienceTests.client(transport, middlewares: [RetryMiddleware(policy: policy, clock: clock)])
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(error.status == .gatewayTimeout)
            #expect(attempts.count == 2)
            #expect(timeouts.current == [.seconds(60), .seconds(4)], "the retry may only use the 4 s left")
        }
    }
}
