import Courier

/// Remembers the results of a pure function for the few inputs a cache sees again and again.
///
/// Every hit parses the same stored `Cache-Control` value and normalises the same URL; those
/// parses cost more than the rest of a hit. The table is bounded: when it is full it starts over,
/// so hostile or ever-changing inputs cost one parse each and never grow memory.
final class BoundedMemo<Input: Hashable & Sendable, Output: Sendable>: Sendable {
    private let table = Locked<[Input: Output]>([:])
    private let capacity: Int

    /// A memo holding at most `capacity` results.
    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// The remembered output for `input`, or `compute(input)` remembered.
    func value(for input: Input, _ compute: (Input) -> Output) -> Output {
        if let known = table.withLock({ $0[input] }) { return known }
        let output = compute(input)
        table.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[input] = output
        }
        return output
    }
}
