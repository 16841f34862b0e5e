import ArgumentParser
import CourierExamples
import Foundation

/// `swift run courier-demo`: starts the sample social API on 127.0.0.1 and tours Courier's features.
@main
struct CourierDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier-demo",
        abstract: "A narrated tour of Courier against an embedded sample social-network API."
    )

    @Flag(help: "Only run the embedded server (until interrupted) and print its URL.")
    var serve = false

    @Option(help: "Point the tour at a server that is already running instead of the embedded one.")
    var baseURL: String?

    @Option(help: "The port of the embedded server (0 picks a free one).")
    var port = 0

    func run() async throws {
        if let baseURL {
            guard let url = URL(string: baseURL), url.scheme != nil else { throw ValidationError("'\(baseURL)' is not an absolute URL") }
            try await Tour(baseURL: url, api: nil).run()
            return
        }
        let api = try await SampleSocialAPI.start(port: port)
        if serve {
            print("Sample social API listening on \(api.baseURL.absoluteString) (Ctrl-C to stop)")
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        defer { Task { try? await api.shutdown() } }
        try await Tour(baseURL: api.baseURL, api: api).run()
        try await api.shutdown()
    }
}
