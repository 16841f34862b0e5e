@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A `URLError`'s kind comes from its code; curl's text (Linux only) only splits the codes that
/// FoundationNetworking gives to several failures.
@Suite struct URLErrorKindTests {
    /// What Apple's URLSession reports: a code and no curl text.
    @Test(arguments: [
        (URLError.Code.notConnectedToInternet, CourierError.Kind.noConnection),
        (.cannotConnectToHost, .noConnection),
        (.cannotFindHost, .noConnection),
        (.dnsLookupFailed, .noConnection),
        (.dataNotAllowed, .noConnection),
        (.timedOut, .timedOut),
        (.cancelled, .cancelled),
        (.networkConnectionLost, .connectionLost),
        (.requestBodyStreamExhausted, .connectionLost),
        (.badServerResponse, .invalidResponse),
        (.unsupportedURL, .invalidRequest),
        (.badURL, .invalidRequest),
        (.dataLengthExceedsMaximum, .bodyTooLarge),
        (.secureConnectionFailed, .transport),
        (.serverCertificateUntrusted, .serverTrust),
        (.serverCertificateHasBadDate, .serverTrust),
        (.unknown, .transport),
    ])
    func appleCodesDecideAlone(code: URLError.Code, kind: CourierError.Kind) {
        #expect(CourierError.kind(for: code, curlMessage: nil) == kind)
    }

    /// What FoundationNetworking reports for curl failures it files under one code.
    @Test(arguments: [
        (URLError.Code.badServerResponse, "Empty reply from server", CourierError.Kind.connectionLost),
        (.badServerResponse, "Weird server reply", .invalidResponse),
        (.unsupportedURL, "Received HTTP/0.9 when not allowed", .invalidResponse),
        (.unsupportedURL, "Protocol \"gopher\" not supported", .invalidRequest),
        (.unknown, "transfer closed with 10 bytes remaining to read", .connectionLost),
        (.unknown, "Invalid Content-Length: value", .invalidResponse),
        (.unknown, "Something else", .transport),
        // A code that decides is never overruled by text.
        (.timedOut, "transfer closed with 10 bytes remaining to read", .timedOut),
    ])
    func curlTextSplitsOnlyAmbiguousCodes(code: URLError.Code, message: String, kind: CourierError.Kind) {
        #expect(CourierError.kind(for: code, curlMessage: message) == kind)
    }

    @Test func theStaleConnectionAnswerIsCurlsAlone() {
        #expect(CourierError.isAnswerThatIsNotHTTP(code: .unsupportedURL, curlMessage: "Received HTTP/0.9 when not allowed"))
        #expect(!CourierError.isAnswerThatIsNotHTTP(code: .unsupportedURL, curlMessage: nil))
        #expect(!CourierError.isAnswerThatIsNotHTTP(code: .badServerResponse, curlMessage: "Received HTTP/0.9 when not allowed"))
    }

    /// On Linux the text is read; on Apple platforms it never is.
    @Test func onlyFoundationNetworkingErrorsCarryCurlText() {
        let error = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "transfer closed with 3 bytes remaining to read"])
        #if canImport(FoundationNetworking)
        #expect(CourierError.from(urlError: error).kind == .connectionLost)
        #else
        #expect(CourierError.from(urlError: error).kind == .transport)
        #endif
    }

    @Test(arguments: [
        (ECONNREFUSED, CourierError.Kind?.some(.noConnection)),
        (ENETUNREACH, .noConnection),
        (EHOSTUNREACH, .noConnection),
        (ECONNRESET, .connectionLost),
        (ECONNABORTED, .connectionLost),
        (EPIPE, .connectionLost),
        (ETIMEDOUT, .timedOut),
        (EACCES, nil),
    ])
    func errnoKinds(code: Int32, kind: CourierError.Kind?) {
        #expect(CourierError.kind(forErrno: code) == kind)
    }
}
