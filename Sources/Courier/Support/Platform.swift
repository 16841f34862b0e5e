/// The operating system Courier was compiled for, so platform decisions are plain values that any
/// platform's tests can check.
package enum Platform: Sendable, CaseIterable {
    case macOS, iOS, tvOS, watchOS, visionOS, linux, other

    /// The platform this build runs on.
    package static var current: Platform {
        #if os(macOS)
        return .macOS
        #elseif os(iOS)
        return .iOS  // Mac Catalyst included
        #elseif os(tvOS)
        return .tvOS
        #elseif os(watchOS)
        return .watchOS
        #elseif os(visionOS)
        return .visionOS
        #elseif os(Linux)
        return .linux
        #else
        return .other
        #endif
    }
}
