import Courier
import CourierTesting
import Foundation

/// The sample API's messages: `POST /messages` applies a message once per `Idempotency-Key` (a
/// repeat gets the first answer, as the IETF draft asks), `GET /messages` lists them in order.
extension SampleSocialAPI {
    func installMessageRoutes() {
        server.route("POST", "/messages") { [state] request in
            guard let message = try? JSONDecoder().decode(Message.self, from: Data(request.body)) else {
                return .json(#"{"message":"A message needs a text"}"#, status: 400)
            }
            let answer = state.withLock { state -> String in
                if let key = request.header("Idempotency-Key"), let first = state.answers[key] { return first }
                state.messages.append(message.text)
                let answer = String(decoding: (try? JSONEncoder().encode(message)) ?? Data(), as: UTF8.self)
                if let key = request.header("Idempotency-Key") { state.answers[key] = answer }
                return answer
            }
            return .json(answer, status: 201)
        }
        server.route("GET", "/messages") { [state] _ in
            .json(state.withLock { $0.messages.map { Message(text: $0) } })
        }
    }
}

/// A message of the sample API.
public struct Message: Codable, Sendable, Hashable {
    /// The message's text.
    public var text: String

    /// A message with its text.
    public init(text: String) { self.text = text }
}
