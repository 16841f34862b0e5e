import Foundation

/// The default ``Endpoint/operationName`` of a type, worked out once per type.
///
/// `String(reflecting:)` and `Mirror` cost microseconds on every call, and every call names its
/// endpoint (the context, errors, logs): the type part is the same for every value, so it is cached.
struct EndpointTypeName: Sendable {
    /// `Outer.Inner`: the type without its module.
    let typeName: String
    /// Whether the endpoint is an enum, whose name also carries the case.
    let isEnum: Bool

    private static let cache = Locked<[ObjectIdentifier: EndpointTypeName]>([:])

    /// The cached name parts of `endpoint`'s type.
    static func of<E: Endpoint>(_ endpoint: E) -> EndpointTypeName {
        let key = ObjectIdentifier(E.self)
        if let known = cache.withLock({ $0[key] }) { return known }
        let made = EndpointTypeName(
            typeName: unqualifiedName(of: E.self), isEnum: Mirror(reflecting: endpoint).displayStyle == .enum
        )
        cache.withLock { $0[key] = made }
        return made
    }

    /// The type name, and for an enum endpoint `.case` after it, e.g. `ThreadRequest.delete`.
    func name(of endpoint: some Endpoint) -> String {
        guard isEnum else { return typeName }
        // A case with a payload is the mirror's one child, labelled with the case; a case without
        // one has no children and prints as its name.
        let caseName = Mirror(reflecting: endpoint).children.first?.label ?? String(describing: endpoint)
        return "\(typeName).\(caseName.prefix { $0 != "(" })"
    }

    /// `Module.Outer.Inner` without the module: nested endpoints keep their namespace. Types declared
    /// inside a function print an "(unknown context at $address)." part: dropped, so the name stays
    /// a stable, bounded label.
    private static func unqualifiedName(of type: Any.Type) -> String {
        var qualified = String(reflecting: type)
        while let start = qualified.range(of: "(unknown context at "), let end = qualified[start.upperBound...].range(of: ").") {
            qualified.removeSubrange(start.lowerBound..<end.upperBound)
        }
        return qualified.firstIndex(of: ".").map { String(qualified[qualified.index(after: $0)...]) } ?? qualified
    }
}
