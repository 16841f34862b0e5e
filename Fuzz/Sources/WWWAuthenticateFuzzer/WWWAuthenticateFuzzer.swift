import Courier
import FuzzSupport
import HTTPTypes

/// `WWW-Authenticate` challenges on a 401: deciding whether a refresh may help never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    var fields = HTTPFields()
    for part in input.parts { fields.append(HTTPField(name: .wwwAuthenticate, value: part)) }
    let refusal = HTTPResponse(status: .unauthorized, headerFields: fields)
    let decision = TokenRefreshMiddleware.isTokenFailure(refusal, context: nil)
    if decision, input.text.lowercased().filter({ !$0.isWhitespace && $0 != "\"" }).contains("error=insufficient_scope") {
        fuzzFailure("insufficient_scope treated as an expired token: '\(input.text)'")
    }
    if TokenRefreshMiddleware.isTokenFailure(HTTPResponse(status: .forbidden, headerFields: fields), context: nil) {
        fuzzFailure("a 403 treated as an expired token")
    }
    return 0
}
