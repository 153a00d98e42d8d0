import Foundation

/// The real `frostbox` executable as a child process — a server on port 0, or a one-shot
/// command such as `notify --once` — for end-to-end tests (crash and restart included). Its
/// output goes to a log file in `directory`.
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

    init(arguments: [String], directory: URL, environment: [String: String] = [:], executable: URL = ServerProcess.executableURL) throws {
        logURL = directory.appendingPathComponent("server-\(UUID().uuidString).log")
        // A file that could not be created fails the FileHandle below.
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logURL)
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        // Only the given settings: a FROSTBOX_ variable of the test runner's would leak in.
        // The 10 s header timeout (a slow-client defence, tested in process by the connection
        // guard suite) closed requests a loaded whole run had not let the server read in time:
        // "no answer" and remoteConnectionClosed in suites that are not about it. A test may
        // still set its own.
        let patient = ["FROSTBOX_SERVER_HEADER_TIMEOUT": "60s"]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FROSTBOX_") }.merging(patient) { $1 }
            .merging(environment) { $1 }
        process.currentDirectoryURL = directory
    }

    /// Starts the process and waits (up to `timeout` seconds) for its listening line. A first
    /// start seeds the bundled places before it listens: 0.9 s on a quiet machine, but 58 s was
    /// seen on a CI machine with the whole suite running beside it, so the default wait is long;
    /// a server that exits early still fails at once.
    func start(timeout: Double = 240) async throws {
        try ProcessLaunch.run(process)
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
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Starts a command that does not listen (e.g. `notify --once`), without waiting for it.
    func launch() throws { try ProcessLaunch.run(process) }

    /// Polls `condition` and sends SIGKILL as soon as it holds; true when the process was
    /// still running then (false: it finished first).
    func kill(when condition: () async -> Bool, timeout: Double = 120) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else { return false }
            if await condition() {
                kill9()
                return true
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        kill9()
        throw ServerError(message: "the kill condition never held; log:\n\(log.suffix(2000))")
    }

    /// Waits for the process to exit; its status.
    func wait(timeout: Double) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill9()
            throw ServerError(message: "the process did not finish in \(timeout) s; log:\n\(log.suffix(2000))")
        }
        return process.terminationStatus
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
