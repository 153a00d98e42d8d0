import Foundation
import FrostboxCore
import Hummingbird

/// `/admin/devices/pending`: the devices still waiting to be proven real (issue #33), and a
/// purge of those that have waited too long (invented tokens the gateway never saw answer
/// as rejected and are removed by the next run; these are the ones it could not judge).
extension AdminRoutes {
    func addPendingDevices(to routes: RouteBuilder) {
        routes.on(.get, "/admin/devices/pending") { request, context in
            try authorize(request, context)
            let store = try verificationStore()
            let parameters = request.uri.queryParameters
            let olderThan = try Self.seconds(parameters["older_than"].map(String.init), name: "older_than", default: 0)
            let limit = try Self.count(parameters["limit"].map(String.init), name: "limit", default: 100, range: 1...1_000)
            let now = Int64(Date().timeIntervalSince1970)
            let devices = try await store.pendingDevices(createdBefore: now - olderThan + 1, limit: limit)
            let counts = try await store.verificationCounts()
            return JSONResponse(
                .ok,
                PendingDevicesList(
                    devices: devices.map(PendingDeviceItem.init), pending: counts.pendingDevices,
                    boxesAwaitingVerification: counts.boxesAwaitingVerification))
        }

        routes.on(.delete, "/admin/devices/pending") { request, context in
            try authorize(request, context, changesState: true)
            let store = try verificationStore()
            guard let raw = request.uri.queryParameters["older_than"].map(String.init) else {
                throw APIError.badRequest(.invalidField, "older_than (seconds) is required: pending devices first registered longer ago are deleted")
            }
            let olderThan = try Self.seconds(raw, name: "older_than", default: 0)
            let now = Int64(Date().timeIntervalSince1970)
            let deleted = try await store.purgePendingDevices(createdBefore: now - olderThan + 1)
            context.logger.notice("pending devices purged by admin", metadata: ["older_than": "\(olderThan)", "deleted": "\(deleted)"])
            return JSONResponse(.ok, ["deleted": deleted])
        }
    }

    private func verificationStore() throws(APIError) -> any DeviceVerificationStore {
        guard let store = operations.pendingDevices else {
            throw APIError(
                .conflict, code: "verification_off",
                "devices are not verified in this process (devices.verify is off, or no push app is configured): every device counts as verified")
        }
        return store
    }

    /// A whole number of seconds, 0…10 years.
    static func seconds(_ raw: String?, name: String, default fallback: Int64) throws(APIError) -> Int64 {
        guard let raw else { return fallback }
        guard let value = Int64(raw), (0...315_576_000).contains(value) else {
            throw APIError.badRequest(.invalidField, "\(name) must be a whole number of seconds within 0…315576000")
        }
        return value
    }

    static func count(_ raw: String?, name: String, default fallback: Int, range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let raw else { return fallback }
        guard let value = Int(raw), range.contains(value) else {
            throw APIError.badRequest(.invalidField, "\(name) must be an integer within \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }
}

/// The body of `GET /admin/devices/pending`.
struct PendingDevicesList: Encodable {
    /// The oldest pending devices first (tokens shortened: enough to tell them apart).
    let devices: [PendingDeviceItem]
    /// All pending devices.
    let pending: Int
    /// Subscribed boxes in which no device is verified yet.
    let boxesAwaitingVerification: Int

    enum CodingKeys: String, CodingKey {
        case devices, pending
        case boxesAwaitingVerification = "boxes_awaiting_verification"
    }
}

/// One pending device as the admin API lists it.
struct PendingDeviceItem: Encodable {
    let token: String
    let platform: String
    let app: String?
    let createdAt: String
    let registeredAt: String

    init(_ device: PendingDevice) {
        token = device.token.redacted
        platform = device.platform.rawValue
        app = device.app
        createdAt = Timestamp.iso8601(device.createdAt)
        registeredAt = Timestamp.iso8601(device.registeredAt)
    }

    enum CodingKeys: String, CodingKey {
        case token, platform, app
        case createdAt = "created_at"
        case registeredAt = "registered_at"
    }
}
