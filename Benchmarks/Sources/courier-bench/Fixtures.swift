import Foundation

/// The small object every GET scenario decodes (~236 bytes of JSON).
struct SmallUser: Codable, Sendable {
    var id: Int
    var login: String
    var name: String
    var email: String
    var company: String
    var location: String
    var followers: Int
    var following: Int
    var siteAdmin: Bool
    var createdAt: String
    var bio: String
}

/// One element of the 1 MB array.
struct LargeItem: Codable, Sendable {
    var id: Int
    var title: String
    var score: Double
    var tags: [String]
    var active: Bool
}

/// The cached response (~2 KB).
struct CachedFeed: Codable, Sendable {
    var version: Int
    var entries: [String]
}

/// The POST body and its answer.
struct NewNote: Codable, Sendable {
    var title: String
    var body: String
    var tags: [String]
}

struct PostAnswer: Codable, Sendable {
    var ok: Bool
}

/// The files the server serves, generated once per run so every client sees the same bytes.
enum Fixtures {
    static let smallPath = "/small.json"
    static let largePath = "/large.json"
    static let cachedPath = "/cached.json"
    static let postPath = "/post"
    static let cacheMaxAge = 3600

    static let small: Data = {
        let user = SmallUser(
            id: 583231, login: "octocat", name: "The Octocat", email: "octocat@example.com", company: "@github",
            location: "San Francisco", followers: 9001, following: 9, siteAdmin: false,
            createdAt: "2011-01-25T18:44:36Z", bio: "A cat that codes, reviews pull requests and benchmarks."
        )
        return encode(user)
    }()

    static let large: Data = {
        var items: [LargeItem] = []
        var data = Data()
        var id = 0
        // Grow until the encoded array is about 1 MB.
        while data.count < 1_000_000 {
            for _ in 0..<500 {
                items.append(LargeItem(
                    id: id, title: "Item number \(id) of the large fixture", score: Double(id) * 1.25,
                    tags: ["alpha", "beta", "tag\(id % 17)"], active: id % 3 == 0
                ))
                id += 1
            }
            data = encode(items)
        }
        return data
    }()

    static let cached: Data = {
        let entries = (0..<60).map { "cached entry \($0) with a little padding text" }
        return encode(CachedFeed(version: 1, entries: entries))
    }()

    static let note = NewNote(title: "Benchmark note", body: "Posted by courier-bench to measure a JSON POST.", tags: ["bench", "post"])
    static let postAnswer = Data(#"{"ok":true}"#.utf8)

    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // The fixtures are built from constant values; encoding them cannot fail.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    /// Writes the fixture files into `directory` (the nginx document root).
    static func write(into directory: URL) throws {
        try small.write(to: directory.appendingPathComponent("small.json"))
        try large.write(to: directory.appendingPathComponent("large.json"))
        try cached.write(to: directory.appendingPathComponent("cached.json"))
    }
}
