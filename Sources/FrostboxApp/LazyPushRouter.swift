import FrostboxAPNs
import FrostboxCore
import FrostboxFCM
import FrostboxWebPush
import Logging
import Synchronization

/// What the app needs of a platform's push router besides sending: its transport's gauges and
/// closing its connections.
protocol PlatformPushRouter: PushSender {
    var openConnections: Int { get }
    var streamsInFlight: Int { get }
    func shutdown() async
}

extension APNsPushRouter: PlatformPushRouter {}
extension FCMPushRouter: PlatformPushRouter {}
extension WebPushRouter: PlatformPushRouter {}

/// A platform's push router, made on its first push (so commands that never push open no
/// connection) and closed by `shutdown()`. A router that cannot be made fails each push of the
/// batch as `authFailure("<Platform>ClientUnavailable")`, logged as critical.
final class LazyPushRouter<Router: PlatformPushRouter>: PushSender, Sendable {
    /// The platform's name in logs (`APNs`, `FCM`, `Web Push`).
    private let name: String
    private let make: @Sendable () throws -> Router
    private let router = Mutex<Router?>(nil)
    private let logger: Logger

    init(name: String, logger: Logger, make: @escaping @Sendable () throws -> Router) {
        self.name = name
        self.make = make
        self.logger = logger
    }

    /// The router, made on first use.
    func made() throws -> Router {
        try router.withLock { router in
            if let router { return router }
            let made = try make()
            router = made
            return made
        }
    }

    /// The router if a push made it already.
    var current: Router? { router.withLock { $0 } }

    func send(_ batch: [PushNotification]) -> PushOutcomes {
        do {
            return try made().send(batch)
        } catch {
            logger.critical("\(name) client could not start", metadata: ["error": "\(error)"])
            let reason = name.replacingOccurrences(of: " ", with: "") + "ClientUnavailable"
            return PushOutcomes(batch.map { _ in .authFailure(reason: reason) })
        }
    }

    /// HTTP/2 connections open now (0 before the first push).
    var openConnections: Int { current?.openConnections ?? 0 }
    /// Requests awaiting an answer now.
    var streamsInFlight: Int { current?.streamsInFlight ?? 0 }

    /// Closes the router's connections, if it was made.
    func shutdown() async {
        let opened = router.withLock { router in
            defer { router = nil }
            return router
        }
        await opened?.shutdown()
    }

    deinit {
        // Open connections must be closed; the task keeps the router alive until they are.
        if let opened = current {
            Task { await opened.shutdown() }
        }
    }
}
