extension String {
    /// Whether the text holds a NUL byte, where SQLite's C strings end: GRDB binds a text up to
    /// it, so `alice<NUL>mallory` would be stored, and matched, as `alice`.
    package var holdsNUL: Bool {
        utf8.contains(0)
    }
}
