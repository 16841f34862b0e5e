import AsyncHTTPClient
import Courier
@testable import CourierAsyncHTTPClient
import Foundation
import Testing

/// Network.framework's failures (AsyncHTTPClient on Apple platforms) map to Courier's kinds by
/// their codes: this is the mapping the Apple-only cast feeds, run here on plain values.
@Suite struct NetworkFailureTests {
    @Test(arguments: [
        (NetworkFailure.posix(ECONNREFUSED), CourierError.Kind.noConnection),
        (.posix(ENETUNREACH), .noConnection),
        (.posix(EHOSTUNREACH), .noConnection),
        (.posix(ENETDOWN), .noConnection),
        (.posix(ECONNRESET), .connectionLost),
        (.posix(ECONNABORTED), .connectionLost),
        (.posix(EPIPE), .connectionLost),
        (.posix(ETIMEDOUT), .timedOut),
        (.posix(EACCES), .transport),
        // kDNSServiceErr_NoSuchRecord, kDNSServiceErr_NoSuchName, kDNSServiceErr_Timeout
        (.dns(-65554), .noConnection),
        (.dns(-65538), .noConnection),
        (.dns(-65568), .noConnection),
        // errSSLBadCert
        (.tls(-9808), .transport),
    ])
    func kinds(failure: NetworkFailure, kind: CourierError.Kind) {
        #expect(failure.kind == kind)
    }

    /// A connection reset, aborted or broken under the request gets the stale-connection resend;
    /// refused, DNS and TLS failures don't.
    @Test(arguments: [
        (NetworkFailure.posix(ECONNRESET), true),
        (.posix(EPIPE), true),
        (.posix(ECONNABORTED), true),
        (.posix(ECONNREFUSED), false),
        (.posix(ETIMEDOUT), false),
        (.dns(-65554), false),
        (.tls(-9808), false),
    ])
    func theResendRule(failure: NetworkFailure, resends: Bool) {
        #expect(failure.isClosedBeforeAnswering == resends)
    }

    @Test func otherErrorsAreNotNetworkFrameworks() {
        #expect(NetworkFailure(CancellationError()) == nil)
        #expect(NetworkFailure(CourierError(.transport, detail: "x")) == nil)
        #expect(NetworkFailure(POSIXError(.ECONNREFUSED)) == nil)
    }

    /// Network.framework fails a refused or offline connect at once instead of waiting up to the
    /// connect timeout (the option is ignored on Linux's POSIX event loops).
    @Test func theRecommendedClientDoesNotWaitForConnectivity() {
        #expect(AsyncHTTPClientTransport.recommendedConfiguration.networkFrameworkWaitForConnectivity == false)
        #expect(AsyncHTTPClientTransport.recommendedConfiguration.connectionPool.retryConnectionEstablishment == false)
    }
}
