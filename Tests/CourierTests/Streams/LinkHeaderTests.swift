@testable import Courier
import HTTPTypes
import Testing

/// `Link` header fields parsed as RFC 8288 says.
@Suite struct LinkHeaderTests {
    @Test func theNextLinkIsFoundAmongSeveral() {
        let header = LinkHeader(#"<https://a.example/1>; rel="prev first", <https://a.example/3>; title="x, y; rel=next"; rel="NEXT last""#)
        #expect(header.links.count == 2)
        #expect(header.target(of: "next") == "https://a.example/3")
        #expect(header.target(of: "first") == "https://a.example/1")
        #expect(header.target(of: "last") == "https://a.example/3")
    }

    @Test func onlyTheFirstRelCounts() {
        #expect(LinkHeader("</a>; rel=prev; rel=next").target(of: "next") == nil)
        #expect(LinkHeader("</a>;rel=next").target(of: "next") == "/a")
    }

    @Test func everyFieldLineIsRead() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("Link")!, value: "</1>; rel=prev"))
        fields.append(HTTPField(name: HTTPField.Name("Link")!, value: "</3>; rel=next"))
        #expect(LinkHeader(fields).target(of: "next") == "/3")
    }

    @Test(arguments: ["", "garbage", "<unclosed; rel=next", "</a>; rel=\"next", ";;;,,,<", "</a> rel=next, </b>; rel=next"])
    func malformedValuesAreSkippedWithoutACrash(value: String) {
        let header = LinkHeader(value)
        #expect(header.target(of: "next") == nil || header.target(of: "next") == "/b" || header.target(of: "next") == "/a")
    }
}
