import CourierCache
import HTTPTypes
import Testing

@Suite struct CacheControlTests {
    @Test func parsesResponseDirectives() {
        let directives = CacheControl(values: [
            "max-age=60, s-maxage=120, must-revalidate, proxy-revalidate, public, private, immutable",
            "stale-if-error=300, stale-while-revalidate=30, no-cache, no-store",
        ])
        #expect(directives.maxAge == 60)
        #expect(directives.sharedMaxAge == 120)
        #expect(directives.mustRevalidate && directives.proxyRevalidate)
        #expect(directives.isPublic && directives.isPrivate && directives.immutable)
        #expect(directives.staleIfError == 300)
        #expect(directives.staleWhileRevalidate == 30)
        #expect(directives.noCache && directives.noStore)
    }

    @Test func parsesRequestDirectives() {
        let directives = CacheControl(values: ["max-age=5, min-fresh=10, max-stale=20, only-if-cached"])
        #expect(directives.maxAge == 5)
        #expect(directives.minFresh == 10)
        #expect(directives.maxStale == 20)
        #expect(directives.onlyIfCached)
    }

    @Test func maxStaleWithoutValueIsUnlimited() {
        #expect(CacheControl(values: ["max-stale"]).maxStale == CacheControl.unlimited)
        #expect(CacheControl(values: ["max-stale, max-stale=5"]).maxStale == 5)
    }

    @Test(arguments: [
        ("MAX-AGE=60", 60), ("max-age=\"60\"", 60), ("max-age=99999999999999999999999", 2_147_483_648),
        ("max-age=abc, max-age=60", 60), ("max-age=1.5, max-age=60", 60),
    ])
    func maxAgeTakesTheFirstValidValue(value: String, expected: Int) {
        #expect(CacheControl(values: [value]).maxAge == expected)
    }

    @Test(arguments: [
        (["max-age=10, max-age=3600"], 10), (["max-age=3600, max-age=10"], 3600),
        (["max-age=3600", "max-age=10"], 3600), (["no-cache, max-age=10", "max-age=0"], 10),
    ])
    func ofConflictingMaxAgesTheFirstCounts(lines: [String], expected: Int) {
        #expect(CacheControl(values: lines).maxAge == expected)
    }

    @Test func ofConflictingSharedMaxAgesTheFirstCounts() {
        #expect(CacheControl(values: ["s-maxage=3600, s-maxage=10"]).sharedMaxAge == 3600)
    }

    @Test(arguments: [
        "max-age=abc", "max-age=-5", "max-age=", "max-age", "max-age=1.5", "max-age=0x10", "Max-Age = 60",
        "max-age =60", "max-age= 60", "max-age=\t60", "max-age=60s",
    ])
    func anInvalidMaxAgeIsIgnored(value: String) {
        #expect(CacheControl(values: [value]).maxAge == nil)
        #expect(CacheControl(values: [value + ", s-maxage = 5"]).sharedMaxAge == nil)
    }

    @Test func quotedCommasDoNotSplit() {
        let directives = CacheControl(values: ["no-cache=\"Set-Cookie, X-Foo\", max-age=30"])
        #expect(!directives.noCache)
        #expect(directives.noCacheFieldNames == ["set-cookie", "x-foo"])
        #expect(directives.maxAge == 30)
    }

    @Test(arguments: ["no-cache", "no-cache=\"\"", "no-cache = \"X-Foo\"", "no-cache=\"bad name\"", "no-cache=X-Foo, no-cache"])
    func noCacheWithoutAUsableFieldListCoversTheWholeResponse(value: String) {
        #expect(CacheControl(values: [value]).noCache)
    }

    @Test func privateWithFieldListIsPrivate() {
        let directives = CacheControl(values: ["private=\"Set-Cookie\", private=X-User"])
        #expect(directives.isPrivate)
        #expect(directives.privateFieldNames == ["set-cookie", "x-user"])
    }

    @Test func mustUnderstandIsParsed() {
        #expect(CacheControl(values: ["no-store, must-understand"]).mustUnderstand)
        #expect(!CacheControl(values: ["no-store"]).mustUnderstand)
    }

    @Test(arguments: ["", ",,,", "=", "===,,=", "\"", "max-age=\"60", "no-store=\"", "foo, bar=baz", "\u{0}"])
    func garbageIsIgnoredWithoutTrapping(value: String) {
        let directives = CacheControl(values: [value])
        #expect(!directives.isPublic)
        #expect(directives.staleIfError == nil)
    }

    @Test func severalFieldLinesAreCombined() {
        let fields = RuleFixtures.fields([("Cache-Control", "max-age=60"), ("cache-control", "no-cache")])
        let directives = CacheControl(fields)
        #expect(directives.maxAge == 60)
        #expect(directives.noCache)
    }

    @Test func minFreshKeepsTheLargestAndWindowsTheSmallest() {
        let directives = CacheControl(values: ["min-fresh=5, min-fresh=50, stale-if-error=100, stale-if-error=10"])
        #expect(directives.minFresh == 50)
        #expect(directives.staleIfError == 10)
    }

    @Test func invalidOptionalWindowsAreIgnored() {
        let directives = CacheControl(values: ["stale-if-error=x, stale-while-revalidate=-1, min-fresh=z, max-stale=q"])
        #expect(directives.staleIfError == nil)
        #expect(directives.staleWhileRevalidate == nil)
        #expect(directives.minFresh == nil)
        #expect(directives.maxStale == nil)
    }

    @Test func pragmaNoCacheCountsOnlyWithoutCacheControl() {
        let pragmaOnly = RuleFixtures.fields([("Pragma", "no-cache")])
        #expect(CacheControl(request: pragmaOnly).noCache)
        #expect(!CacheControl(pragmaOnly).noCache)
        let both = RuleFixtures.fields([("Pragma", "no-cache"), ("Cache-Control", "max-age=60")])
        #expect(!CacheControl(request: both).noCache)
    }
}
