import OpenAPIRuntime

/// One link of a client's chain, by how the client calls it; sorted once, when the chain is set.
enum ChainLink: Sendable {
    /// A Courier middleware: handed the call's context as a value, it returns an ``Answer``.
    case courier(any CourierMiddleware)
    /// An app's own `ClientMiddleware`: it reads the context as ``RequestContext/current``.
    case foreign(any ClientMiddleware)

    init(_ middleware: any ClientMiddleware) {
        if let courier = middleware as? any CourierMiddleware {
            self = .courier(courier)
        } else {
            self = .foreign(middleware)
        }
    }
}
