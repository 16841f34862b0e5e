@testable import CourierCache
import Testing

@Suite struct BoundedMemoTests {
    @Test func computesOncePerInputWhileItFits() {
        let memo = BoundedMemo<String, Int>(capacity: 4)
        var computed = 0
        for _ in 0..<3 {
            for word in ["a", "bb", "ccc"] {
                #expect(memo.value(for: word) { computed += 1; return $0.count } == word.count)
            }
        }
        #expect(computed == 3)
    }

    @Test func startsOverWhenFullInsteadOfGrowing() {
        let memo = BoundedMemo<Int, Int>(capacity: 2)
        var computed = 0
        for input in [1, 2, 3, 1] {
            #expect(memo.value(for: input) { computed += 1; return $0 * 10 } == input * 10)
        }
        // 3 found the table full and cleared it, so 1 was computed again.
        #expect(computed == 4)
    }

    @Test func cacheControlParsesAreRememberedButStayCorrect() {
        let first = CacheControl(values: ["max-age=60, must-revalidate"])
        let second = CacheControl(values: ["max-age=60, must-revalidate"])
        #expect(first == second)
        #expect(first.maxAge == 60 && first.mustRevalidate)
        #expect(CacheControl(values: ["no-store"]).noStore)
        #expect(CacheControl(values: []) == CacheControl())
    }
}
