@testable import Courier
import Foundation
import HTTPTypes
import Testing

/// `CourierError` keeps its evidence in a shared box; it must still behave as a value.
@Suite struct CourierErrorValueTests {
    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = CourierError(.server, detail: "first", serverMessage: "no such user", status: .notFound)
        var copy = original
        copy.detail = "second"
        copy.kind = .timedOut
        copy.serverMessage = nil
        copy.endpoint = "Users.Show"
        #expect(original.detail == "first")
        #expect(original.kind == .server)
        #expect(original.serverMessage == "no such user")
        #expect(original.endpoint == nil)
        #expect(original.family == .server)
        #expect(copy.detail == "second" && copy.kind == .timedOut && copy.serverMessage == nil && copy.endpoint == "Users.Show")
        #expect(copy.status == .notFound)
    }

    @Test func fillingAddsOnlyWhatIsMissing() {
        let summary = RequestSummary(method: .get, url: "https://api.example.com/users/1")
        let bare = CourierError(.transport, detail: "reset")
        let filled = bare.filling(endpoint: "Users.Show", request: summary, redaction: Redaction())
        #expect(filled.endpoint == "Users.Show")
        #expect(filled.request == summary)
        #expect(bare.endpoint == nil && bare.request == nil)

        var named = CourierError(.transport, detail: "reset")
        named.endpoint = "Inner.Call"
        let kept = named.filling(endpoint: "Outer.Call", request: summary, redaction: Redaction())
        #expect(kept.endpoint == "Inner.Call")
        #expect(kept.request == summary)
    }
}
