extension Duration {
    /// The duration as a floating-point number of seconds (Foundation's `TimeInterval`, timers, logs).
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
