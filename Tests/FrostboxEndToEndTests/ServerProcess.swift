import Foundation

/// The real `frostbox` executable started as a child process on port 0, for end-to-end
/// tests (crash and restart included). Its output goes to a log file in `directory`.
final class ServerProcess {
    let process = Process()
    let logURL: URL
    private(set) var port = 0

    /// The `frostbox` binary built next to the test bundle.
    static var executableURL: URL {
        var url = Bundle.main.bundleURL
        // On Linux the tests run from `.build/<config>/<package>PackageTests.xctest`.
        if url.pathExtension == "xctest" { url.deleteLastPathComponent() }
        let candidate = url.appendingPathComponent("frostbox")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("frostbox")
    }

    init(arguments: [String], directory: URL, environment: [String: String] = [:]) throws {
        logURL = directory.appendingPathComponent("server-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logURL)
        process.executableURL = Self.executableURL
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = directory
    }

    /// Starts the process and waits (up to `timeout` seconds) for its listening line.
    func start(timeout: Double = 60) async throws {
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            if let range = log.range(of: #"listening on [^\s:]+:(\d+)"#, options: .regularExpression) {
                let text = log[range]
                port = Int(text.split(separator: ":").last ?? "") ?? 0
                if port > 0 { return }
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        process.terminate()
        throw ServerError(message: "server did not start listening; log:\n\(log.suffix(3000))")
    }

    /// SIGKILL: no chance to flush or shut down.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    struct ServerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
