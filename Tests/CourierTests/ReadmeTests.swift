import Foundation
import Testing

/// The README's Swift code is `Snippets/QuickStart.swift`'s, which `swift build` compiles and CI
/// runs: each ```swift block of the README is, in order, one named slice of the snippet with its
/// hidden lines left out.
@Suite struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theReadmesCodeIsTheQuickStartSnippet() throws {
        let readme = try String(contentsOf: Self.root.appending(path: "README.md"), encoding: .utf8)
        let snippet = try String(contentsOf: Self.root.appending(path: "Snippets/QuickStart.swift"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme)
        #expect(!blocks.isEmpty)
        #expect(blocks == Self.visibleSlices(of: snippet))
    }

    /// The contents of the ```swift fences of a Markdown text.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if let lines = current, line == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        return blocks
    }

    /// The named slices of a snippet (`// snippet.NAME` … `// snippet.end`), without the lines
    /// between `// snippet.hide` and `// snippet.show`.
    static func visibleSlices(of snippet: String) -> [String] {
        var slices: [String] = []
        var current: [String]?
        var hidden = false
        for line in snippet.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("// snippet.") else {
                if !hidden { current?.append(String(line)) }
                continue
            }
            switch trimmed.dropFirst("// snippet.".count) {
            case "hide": hidden = true
            case "show": hidden = false
            case "end":
                if let lines = current { slices.append(lines.joined(separator: "\n")) }
                current = nil
            default: current = []
            }
        }
        return slices
    }
}
