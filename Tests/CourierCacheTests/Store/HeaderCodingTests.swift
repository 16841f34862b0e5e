@testable import CourierCache
import Foundation
import HTTPTypes
import Testing

@Suite struct HeaderCodingTests {
    /// Order, duplicates, empty values and bytes past ASCII come back as they went in.
    @Test func fieldsRoundTrip() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .contentType, value: "application/json"))
        fields.append(HTTPField(name: .setCookie, value: "a=1"))
        fields.append(HTTPField(name: try #require(HTTPField.Name("X-Empty")), value: ""))
        fields.append(HTTPField(name: .setCookie, value: "b=2; Path=/"))
        fields.append(HTTPField(name: try #require(HTTPField.Name("X-Name")), value: "Zoë: ü"))
        let data = HeaderCoding.encode(fields)
        #expect(data.count == fields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 2 })
        let decoded = data.withUnsafeBytes { HeaderCoding.decode($0) }
        #expect(decoded == fields)
    }

    @Test func noFieldsIsNoBytes() {
        let data = HeaderCoding.encode(HTTPFields())
        #expect(data.isEmpty)
        #expect(data.withUnsafeBytes { HeaderCoding.decode($0) } == HTTPFields())
    }
}
