/// Where the system can say that a device is offline, so ``ConnectivityMiddleware`` asks it there only.
package enum ConnectivityCheck {
    /// Whether the system path monitor gives a usable answer on `platform`.
    ///
    /// Not on watchOS: Apple's TN3135 says an ordinary watchOS app's `NWPathMonitor` stays
    /// unsatisfied (only audio-streaming apps get low-level networking), so every call would fail.
    /// Not off Apple platforms, which have no monitor: there the transports map refused connections
    /// and failed DNS look-ups to `noConnection`.
    package static func isAvailable(on platform: Platform) -> Bool {
        switch platform {
        case .macOS, .iOS, .tvOS, .visionOS: true
        case .watchOS, .linux, .other: false
        }
    }
}
