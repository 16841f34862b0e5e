import Foundation
import HTTPTypes

/// An endpoint whose response is a stream of events, each decoded into ``Event`` as it arrives:
/// server-sent events or JSON Lines. Read it with ``Client/events(for:reconnection:)``.
///
/// ```swift
/// struct LiveScores: EventStreamEndpoint {
///     typealias Event = Score
///     var path: EndpointPath { "/scores/live" }
///     var eventFormat: EventStreamFormat { .serverSentEvents }
/// }
///
/// for try await event in try await client.events(for: LiveScores()).value {
///     show(event.value)
/// }
/// ```
public protocol EventStreamEndpoint: Endpoint {
    /// The value each event decodes into.
    associatedtype Event: Sendable
    /// The value ``Client/send(_:cachePolicy:)`` returns for the whole body: its raw bytes unless set.
    associatedtype Response = Data

    /// How the body carries events; defaults to server-sent events.
    var eventFormat: EventStreamFormat { get }
    /// The most bytes one line or one event may hold, or nil for the client's
    /// ``Client/Configuration/maximumBodySize``. A longer one fails with ``CourierError/Kind/bodyTooLarge``.
    var maximumEventSize: Int? { get }

    /// Turns one event's data into a value, or returns nil to skip the event (a keep-alive, a name
    /// the app does not handle). Uses the client's decoder by default.
    /// - Throws: Any error; the stream then fails with ``CourierError/Kind/decodingFailed`` naming the event.
    func decodeEvent(_ event: StreamedEvent<Data>, context: DecodingContext) throws -> Event?
}

extension EventStreamEndpoint {
    /// Server-sent events.
    public var eventFormat: EventStreamFormat { .serverSentEvents }
    /// Nil: the client's ``Client/Configuration/maximumBodySize``.
    public var maximumEventSize: Int? { nil }
    /// Asks for the event format's media type.
    public var headers: HTTPFields { [.accept: eventFormat.mediaType] }
}

extension EventStreamEndpoint where Event: Decodable {
    /// Decodes the event's data with the client's decoder; a `Data` event gets the raw bytes and a
    /// `String` event the UTF-8 text.
    public func decodeEvent(_ event: StreamedEvent<Data>, context: DecodingContext) throws -> Event? {
        if let raw = event.value as? Event { return raw }
        if Event.self == String.self, let text = String(data: event.value, encoding: .utf8) as? Event { return text }
        return try context.decode(Event.self, from: event.value)
    }
}
