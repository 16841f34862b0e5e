/// Whether `condition` held within `limit`, checked every 10 ms: a wait for something the test
/// can't be told of directly. The limit is a backstop far beyond what a passing run waits, so a
/// loaded machine doesn't fail it.
package func eventually(within limit: Duration = .seconds(120), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
