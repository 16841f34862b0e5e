@testable import CourierCache
import Foundation
import FuzzSupport
import HTTPTypes

/// Comma-separated field lists (`Vary`, `Pragma`, `Connection`, directives with quoted values) and
/// the `Vary` selection built from them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    for element in FieldList.elements(input.parts) {
        let directive = FieldList.directive(element)
        if directive.name != directive.name.lowercased() { fuzzFailure("directive name not lowercased: \(directive.name)") }
        _ = FieldList.deltaSeconds(directive.value).map { if $0 < 0 { fuzzFailure("negative delta \($0)") } }
    }
    var response = HTTPResponse(status: .ok)
    var request = HTTPRequest(method: .get, scheme: "https", authority: "a", path: "/")
    for (index, part) in input.parts.enumerated() {
        response.headerFields.append(HTTPField(name: .vary, value: part))
        if let name = HTTPField.Name(part.trimmingCharacters(in: .whitespaces)) {
            request.headerFields.append(HTTPField(name: name, value: String(index)))
        }
    }
    if let selection = VarySelection(response: response, request: request) {
        if !selection.matches(request) { fuzzFailure("a selection does not match the request it came from") }
    }
    return 0
}
