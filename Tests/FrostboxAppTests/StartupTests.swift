import Foundation
import FrostboxCore
import FrostboxDoubles
import Logging
import Testing

@testable import FrostboxApp

#if canImport(Glibc)
    import Glibc
#endif

/// Start-up errors are plain messages naming what is wrong, raised before anything is scheduled.
@Suite("Start-up errors")
struct StartupTests {
    @Test("a port in use is a configuration error naming the address, and the notifier is never scheduled")
    func portInUse() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(listener, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let directory = try TemporaryDirectory()
        var config = FrostboxSettings()
        config.port = port
        config.databasePath = directory.databasePath
        config.placesSeed = nil
        config.notifier.firstRunDelay = .zero
        let logs = RecordingLogHandler.Store()
        let logger = logs.logger(level: .trace)
        let components = try FrostboxApplication.Components(config: config, logger: logger)
        let group = try await FrostboxApplication.serviceGroup(config: config, components: components, logger: logger, signals: [])
        let error = await #expect(throws: ConfigurationError.self) { try await FrostboxApplication.runServiceGroup(group, config: config) }
        #expect(error?.key == "server.port")
        #expect(error?.description.contains("127.0.0.1:\(port): the address is already in use") == true, "\(String(describing: error))")
        let notifierLines = logs.all.filter { $0.message == "notifier scheduled" || $0.message.hasPrefix("notify run") }
        #expect(notifierLines.isEmpty, "\(notifierLines)")
    }

    @Test("an APNs key file that cannot be read stops start-up with a configuration error naming the app")
    func unreadableKeyNamesTheApp() throws {
        let directory = try TemporaryDirectory()
        var config = FrostboxSettings()
        config.databasePath = directory.databasePath
        var app = APNsAppEntry(bundleID: "com.example.frost")
        app.keyPath = directory.path("missing.p8")
        app.keyID = "ABCDE12345"
        app.teamID = "TEAM123456"
        config.apns.apps = [app]
        let error = #expect(throws: ConfigurationError.self) {
            _ = try FrostboxApplication.Components(config: config, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
        #expect(error?.description.contains("com.example.frost") == true, "\(String(describing: error))")
        #expect(error?.description.contains("missing.p8") == true)
    }

    @Test("places.path ending in / names a generations directory: created 0700, never a places file, and exit 78 naming the key while empty")
    func placesPathDirectory() async throws {
        let directory = try TemporaryDirectory()
        let generations = directory.path("nonexistent") + "/"
        var config = FrostboxSettings()
        config.databasePath = directory.databasePath
        config.placesPathSetting = generations
        let error = #expect(throws: ConfigurationError.self) {
            _ = try FrostboxApplication.Components(config: config, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
        #expect(error?.key == "places.path")
        #expect(error?.description.contains("no complete places generation") == true, "\(String(describing: error))")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: generations, isDirectory: &isDirectory) && isDirectory.boolValue, "not a directory")
        let mode = (try FileManager.default.attributesOfItem(atPath: generations)[.posixPermissions] as? Int ?? -1) & 0o777
        #expect(mode == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: generations).isEmpty)
    }

    @Test("places.path ending in / under a missing parent is refused while loading, naming the key")
    func placesPathMissingParent() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing/generations") + "/"
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await ConfigLoader.load(.init(environment: [:], overrides: ["places.path": path]), logger: Logger(label: "test"))
        }
        #expect(error?.key == "places.path")
        #expect(!FileManager.default.fileExists(atPath: directory.path("missing")))
    }
}
