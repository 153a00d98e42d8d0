import FrostboxCore
import Logging

/// The apps of one platform in one process: a push goes to the client of its `app` (nil: the
/// default app), and a batch is split by app, each part sent through its client at once.
package struct PushAppRouter<Platform: PushPlatform>: Sendable {
    /// Why a push is refused unsent, per platform (APNs: `NotAnAPNsDevice`, `MissingTopic`,
    /// `TopicDisallowed`).
    package struct Refusals: Sendable {
        package var otherPlatform: String
        package var missingApp: String
        package var unknownApp: String

        package init(otherPlatform: String, missingApp: String, unknownApp: String) {
            self.otherPlatform = otherPlatform
            self.missingApp = missingApp
            self.unknownApp = unknownApp
        }
    }

    /// The devices this router serves.
    package let devices: DevicePlatform
    /// The app for pushes without one.
    package let defaultApp: String?
    private let clients: [String: PushClient<Platform>]
    private let refusals: Refusals
    private let logger: Logger

    package init(devices: DevicePlatform, clients: [String: PushClient<Platform>], defaultApp: String?, refusals: Refusals, logger: Logger) {
        self.devices = devices
        self.clients = clients
        self.defaultApp = defaultApp
        self.refusals = refusals
        self.logger = logger
    }

    /// The apps, sorted.
    package var apps: [String] { clients.keys.sorted() }

    /// The client of one app.
    package func client(for app: String) -> PushClient<Platform>? { clients[app] }

    /// Sends a batch: the pushes of each app through its client, all apps at once; the outcomes
    /// come back as the answers do.
    package func send(_ batch: [PushNotification]) -> PushOutcomes {
        PushOutcomes(grouped: { yieldAll in await send(batch, yieldAll: yieldAll) })
    }

    /// `send(_:)` for a caller that is itself inside a `PushOutcomes` (a router sending a batch
    /// in parts): the outcomes go to `yieldAll` in the groups they come in (index in `batch`),
    /// without a sequence of their own in between. Returns when every push has its outcome.
    package func send(_ batch: [PushNotification], yieldAll: @escaping @Sendable ([(index: Int, outcome: PushOutcome)]) -> Void) async {
        var byApp: [String: [(index: Int, notification: PushNotification)]] = [:]
        var refused: [(index: Int, outcome: PushOutcome)] = []
        for (index, notification) in batch.enumerated() {
            switch route(notification) {
            case .success(let app): byApp[app, default: []].append((index, notification))
            case .failure(let refusal): refused.append((index, refusal.outcome))
            }
        }
        yieldAll(refused)
        await withTaskGroup(of: Void.self) { group in
            for (app, pushes) in byApp {
                guard let client = clients[app] else { continue }
                group.addTask { await client.send(pushes, yieldAll: yieldAll) }
            }
        }
    }

    private func route(_ notification: PushNotification) -> Result<String, PushRefusal> {
        guard notification.platform == devices else {
            return .failure(PushRefusal(.permanentFailure(status: 400, reason: refusals.otherPlatform)))
        }
        guard let app = notification.app ?? defaultApp else {
            logger.debug("push without app and no default app configured", metadata: ["token": "\(notification.token)"])
            return .failure(PushRefusal(.permanentFailure(status: 400, reason: refusals.missingApp)))
        }
        guard clients[app] != nil else {
            logger.debug("push for an app that is not configured", metadata: ["app": "\(app)"])
            return .failure(PushRefusal(.permanentFailure(status: 400, reason: refusals.unknownApp)))
        }
        return .success(app)
    }
}
