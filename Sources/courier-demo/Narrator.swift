import Courier
import Foundation

/// Prints the tour: a heading per step, then what happened.
enum Narrator {
    static func step(_ number: Int, _ title: String) {
        print("\n\(number). \(title)")
    }

    static func say(_ text: String) {
        print("   \(text)")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    static func failure(_ error: CourierError) {
        say("✗ \(error.errorDescription ?? "") — family: \(error.family), kind: \(error.kind), status: \(error.status.map { "\($0.code)" } ?? "none")")
    }
}
