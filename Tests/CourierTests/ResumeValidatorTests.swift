import Courier
import Foundation
import HTTPTypes
import Testing

/// What a resumed download's `If-Range` may carry (RFC 9110 §13.1.5, §8.8.2.2).
@Suite struct ResumeValidatorTests {
    private func head(_ fields: [(HTTPField.Name, String)]) -> HTTPResponse {
        var response = HTTPResponse(status: .ok)
        for (name, value) in fields { response.headerFields[name] = value }
        return response
    }

    @Test func aStrongETagIsTheValidator() {
        #expect(FileDownload.validator(of: head([(.eTag, "\"v1\""), (.lastModified, "Mon, 02 Jan 2023 10:00:00 GMT")])) == "\"v1\"")
    }

    /// A client that has an entity tag must not send a date instead, and a weak tag is no validator for a range.
    @Test func aWeakETagLeavesNoValidatorEvenWithADate() {
        let response = head([(.eTag, "W/\"v1\""), (.lastModified, "Mon, 02 Jan 2023 10:00:00 GMT"), (.date, "Tue, 03 Jan 2023 10:00:00 GMT")])
        #expect(FileDownload.validator(of: response) == nil)
    }

    @Test func aDateIsAValidatorOnlyWhenASecondOrMoreBeforeTheResponsesDate() {
        let modified = "Mon, 02 Jan 2023 10:00:00 GMT"
        #expect(FileDownload.validator(of: head([(.lastModified, modified), (.date, "Mon, 02 Jan 2023 10:00:01 GMT")])) == modified)
        #expect(FileDownload.validator(of: head([(.lastModified, modified), (.date, modified)])) == nil, "changed within the second it names")
        #expect(FileDownload.validator(of: head([(.lastModified, modified)])) == nil, "no Date to compare with")
        #expect(FileDownload.validator(of: head([(.lastModified, "yesterday"), (.date, modified)])) == nil)
    }
}
