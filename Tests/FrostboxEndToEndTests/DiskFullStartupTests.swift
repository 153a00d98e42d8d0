import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxNotifier
import FrostboxSQLite
import GRDB
import Logging
import MockOpenMeteo
import Synchronization
import Testing

/// Starting on a disk with no room: a plain message and a non-zero exit status, not an SQLite
/// error number. No root needed: a file-size limit (`ulimit -f`, with SIGXFSZ ignored so the
/// write fails with EFBIG instead of killing the process) stands in for the full disk.
@Suite("Starting on a full disk")
struct DiskFullStartupTests {
    @Test("serve on a disk with no room exits non-zero saying the disk is full")
    func startOnFullDisk() throws {
        let directory = try CommandLineTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("frostbox.sqlite").path
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // 4 blocks of 512 bytes: not even the database's first page fits. `timeout` in case it
        // started anyway (the test then fails on the status instead of hanging).
        process.arguments = [
            "-c", #"ulimit -f 4 && trap '' XFSZ && exec timeout 120 "$0" serve --port 0 --db "$1""#, ServerProcess.executableURL.path, database,
        ]
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FROSTBOX_") }
        process.standardOutput = pipe
        process.standardError = pipe
        try ProcessLaunch.run(process)
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(process.terminationStatus != 124, "serve started despite the limit: \(output)")
        #expect(output.contains("storage unavailable (disk full"), "\(output)")
        #expect(output.contains("File too large") || output.contains("is full"), "\(output)")
        #expect(!output.contains("SQLite error"), "\(output)")
    }
}

/// A notify run on a full SQLite file ends `failed` with the reason, recorded once the file
/// takes writes again: never left `running`.
@Suite("Notify run on a full disk")
struct DiskFullNotifyTests {
    @Test("a run that cannot write its outbox ends failed (disk full), stored as soon as that can be written, never left running")
    func runOnFullDisk() async throws {
        let e2e = NotifierEndToEndTests()
        let mock = MockOpenMeteo(scenario: NotifierEndToEndTests.scenario)
        try await mock.withRunning { url in
            try await e2e.withDirectory { directory in
                let config = e2e.config(directory: directory, mockURL: url)
                let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "e2e"))
                defer { Task { try? await components.forecasts.shutdown() } }
                let database = try #require(components.database.sqlite)
                for n in 0..<300 {
                    _ = try await components.subscriptions.subscribe(
                        NotifierEndToEndTests.token("a1", n),
                        to: NewSubscription(coordinate: NotifierEndToEndTests.helsinki, name: try PlaceName("Home"), unit: .celsius),
                        at: NotifierEndToEndTests.now - 86_400)
                }
                @Sendable func limit(_ full: Bool) async throws {
                    try await database.pool.writeWithoutTransaction { db in
                        let count = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                        try db.execute(sql: "PRAGMA max_page_count = \(full ? count : 1_073_741_823)")
                    }
                }
                try await limit(true)
                let healed = Once()
                let notifier = Notifier(
                    store: GRDBNotifierStore(database: database), forecasts: components.forecasts.provider, push: AcceptingPushSender(),
                    configuration: config.notifier, logger: Logger(label: "e2e"), clock: { NotifierEndToEndTests.now },
                    sleep: { _ in
                        // Should the run's end have to wait for room (a row that grows), make room
                        // (once) instead of waiting.
                        if healed.first() { try await limit(false) }
                    })
                guard case .completed(let summary) = try await notifier.run() else {
                    Issue.record("the run did not start")
                    return
                }
                #expect(summary.status == .failed)
                #expect(summary.error?.contains("disk full") == true, "\(summary.error ?? "-")")
                let stored = try #require(try await GRDBNotifierStore(database: database).recentRuns(limit: 1).first)
                #expect(stored.status == .failed)
                #expect(stored.error?.contains("disk full") == true)
            }
        }
    }
}

/// Accepts every push at once (the run under test fails before it sends any).
struct AcceptingPushSender: PushSender {
    func send(_ batch: [PushNotification]) -> PushOutcomes { PushOutcomes(batch.map { .delivered(messageID: $0.messageID) }) }
}

/// True the first time it is asked, false after.
final class Once: Sendable {
    private let asked = Mutex(false)

    func first() -> Bool {
        asked.withLock { asked in
            defer { asked = true }
            return !asked
        }
    }
}
