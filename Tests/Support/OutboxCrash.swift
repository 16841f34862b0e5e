import Courier
import Foundation
import HTTPTypes

/// What the outbox's crash tests enqueue, in the test process and in the `courier-outbox-peer`
/// process alike.
package enum OutboxCrash {
    /// `POST /writes` with the item's number as its body.
    package struct Write: Endpoint {
        package typealias Response = Data
        package let number: Int

        package init(number: Int) { self.number = number }

        package var method: HTTPRequest.Method { .post }
        package var path: EndpointPath { "/writes" }
        package var body: RequestBody? { .text("write-\(number)") }
    }

    /// Where the peer stops to be killed.
    package enum Stop: String, Sendable, CaseIterable {
        /// Right after `enqueue` returned for an item (the parent kills on the line it prints).
        case afterEnqueue
        /// While an item is at the server, before its answer (the parent kills when the server has it).
        case whileSending
        /// After the server answered, before the item is removed (the peer waits there for the kill).
        case afterAnswer
    }
}
