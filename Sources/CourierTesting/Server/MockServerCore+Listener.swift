import Courier
import NIOConcurrencyHelpers
import NIOCore

/// The listener's lifecycle: bound, taken down with its port held, up again, shut down.
extension MockServerCore {
    /// Stores a freshly bound listener; returns false if the server was shut down meanwhile.
    func finishBinding(_ channel: any Channel) -> Bool {
        state.withLockedValue { state in
            guard case .binding = state.listener else { return false }
            state.listener = .up(channel)
            return true
        }
    }

    /// Marks a failed bind: the server stays down.
    func bindingFailed() {
        state.withLockedValue { state in
            if case .binding = state.listener { state.listener = .down }
        }
    }

    /// Moves from down to binding; false if already up or binding; throws once shut down.
    func beginBinding() throws -> Bool {
        try state.withLockedValue { state in
            switch state.listener {
            case .down:
                state.listener = .binding
                return true
            case .up, .binding:
                return false
            case .shutDown:
                throw MockServerError.shutDown
            }
        }
    }

    /// Keeps the down server's port from other servers until it comes up or shuts down.
    func holdPort(_ hold: PortHold?) {
        let released = state.withLockedValue { state -> PortHold? in
            // A server shut down meanwhile keeps nothing.
            if case .shutDown = state.listener, hold != nil { return hold }
            defer { state.portHold = hold }
            return state.portHold
        }
        released?.release()
    }

    /// Frees the held port, if any.
    func releasePort() { holdPort(nil) }

    /// Whether a down server holds its port.
    var holdsPort: Bool { state.withLockedValue { $0.portHold != nil } }

    /// Stops accepting and hands back the listener (if up) and the open connections to close.
    func takeDown() throws -> (listener: (any Channel)?, connections: [any Channel]) {
        try state.withLockedValue { state in
            var listener: (any Channel)?
            switch state.listener {
            case .up(let channel): listener = channel
            case .binding, .down: listener = nil
            case .shutDown: throw MockServerError.shutDown
            }
            state.listener = .down
            return (listener, Array(state.openChannels.values))
        }
    }

    /// Marks the server shut down; nil if it already was, otherwise what remains to close.
    func beginShutdown() -> (listener: (any Channel)?, connections: [any Channel])? {
        state.withLockedValue { state in
            var listener: (any Channel)?
            switch state.listener {
            case .up(let channel): listener = channel
            case .binding, .down: listener = nil
            case .shutDown: return nil
            }
            state.listener = .shutDown
            return (listener, Array(state.openChannels.values))
        }
    }
}
