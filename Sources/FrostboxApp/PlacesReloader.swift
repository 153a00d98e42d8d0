import CoreMetrics
import Foundation
import FrostboxCore
import FrostboxSQLite
import Logging
import ServiceLifecycle

/// Checks `places.path` for a newer places generation (`PlacesInUse.check`) and keeps the
/// generation metrics current: for the watch service and `POST /admin/places/reload`.
public struct PlacesReloader: Sendable {
    public let places: PlacesInUse
    let createdAt: Gauge
    let switchedAt: Gauge
    let refused: Gauge

    public init(places: PlacesInUse, metrics: any MetricsFactory) {
        self.places = places
        createdAt = Gauge(label: FrostboxMetrics.Name.placesGenerationCreatedAt, factory: metrics)
        switchedAt = Gauge(label: FrostboxMetrics.Name.placesGenerationSwitchedAt, factory: metrics)
        refused = Gauge(label: FrostboxMetrics.Name.placesGenerationsRefused, factory: metrics)
        record()
    }

    /// One check now; its result.
    public func reload() async -> PlacesInUse.CheckResult {
        let result = await places.check(now: Int64(Date().timeIntervalSince1970))
        record()
        return result
    }

    func record() {
        let status = places.status
        createdAt.record(status.createdAt ?? 0)
        switchedAt.record(status.switchedAt ?? 0)
        refused.record(status.refusals)
    }
}

/// Polls for a newer places generation every `interval` (`places.watch_interval`) while
/// the server runs.
struct PlacesWatchService: Service {
    let reloader: PlacesReloader
    let interval: Duration

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break
            }
            _ = await reloader.reload()
        }
    }
}
