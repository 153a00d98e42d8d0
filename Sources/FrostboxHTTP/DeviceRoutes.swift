import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird
import Logging

/// The device API: the legacy handlers the existing app calls (`/register`,
/// `/add_location`, `/remove_location`) and the versioned REST routes under `/v1/devices`.
public struct DeviceRoutes: Sendable {
    let store: any SubscriptionStore
    /// Epoch seconds now (injected so tests control time).
    let clock: @Sendable () -> Int64
    /// How many boxes nobody subscribed to before a client may start; nil: no limit.
    let newPlaces: NewPlaceLimit?
    /// Devices must be proven real (`DeviceVerification`): a device reads as `pending` until
    /// verified. False: every device reads as `verified`.
    let verifiesDevices: Bool
    /// Which platforms and apps this server pushes to: registrations of others are refused.
    let reach: PushReach
    /// How browsers register; nil: they do not (no `POST /v1/devices`).
    let webPush: WebPushRegistration?

    public init(
        store: any SubscriptionStore, clock: @escaping @Sendable () -> Int64, newPlaces: NewPlaceLimit? = nil, verifiesDevices: Bool = false,
        reach: PushReach = .logOnly, webPush: WebPushRegistration? = nil
    ) {
        self.store = store
        self.clock = clock
        self.newPlaces = newPlaces
        self.verifiesDevices = verifiesDevices
        self.reach = reach
        self.webPush = webPush
    }

    public func add(to routes: RouteBuilder) {
        addLegacy(to: routes)
        addDevices(to: routes)
        addSubscriptions(to: routes)
        if let webPush { addWebPush(to: routes, webPush) }
    }

    /// The routes of the existing app, unchanged on the wire.
    func addLegacy(to routes: RouteBuilder) {
        routes.on(.post, "/register") { request, context in
            let body = try await JSONBody.decode(RegisterBody.self, from: request, context: context)
            let registration = try Self.validated { () throws(ValidationError) in
                let platform = try WireValidation.legacyPlatform(body.platform)
                return DeviceRegistration(token: try DeviceToken(body.token, platform: platform), platform: platform)
            }
            let token = registration.token
            let created = try await register(registration)
            context.logger.debug("device registered", metadata: ["token": "\(token.redacted)", "new": "\(created)"])
            return JSONResponse.deviceData(.created, ["status": "registered"])
        }

        routes.on(.post, "/add_location") { request, context in
            let body = try await JSONBody.decode(LegacyLocationBody.self, from: request, context: context)
            let (token, platform, new) = try Self.validated { () throws(ValidationError) in
                let platform = try WireValidation.legacyPlatform(body.platform)
                let token = try DeviceToken(body.token, platform: platform)
                let new = try WireValidation.newSubscription(
                    latitude: body.location.latitude, longitude: body.location.longitude,
                    name: body.location.name, unit: body.location.unit, settings: nil)
                return (token, platform, new)
            }
            let change = try await subscribe(token, new, platform: platform, request: request, context: context)
            // The existing app expects 201 whether or not the location was already there.
            return JSONResponse.deviceData(.created, SubscriptionResponse(change.subscription, created: change.created))
        }

        routes.on(.post, "/remove_location") { request, context in
            let body = try await JSONBody.decode(LegacyLocationBody.self, from: request, context: context)
            let (token, coordinate, name) = try Self.validated { () throws(ValidationError) in
                let token = try DeviceToken(body.token, platform: try WireValidation.legacyPlatform(body.platform))
                _ = try TemperatureUnit(parsing: body.location.unit)
                let coordinate = try Coordinate(latitude: body.location.latitude.value, longitude: body.location.longitude.value)
                return (token, coordinate, try PlaceName(body.location.name))
            }
            let removed = try await store.unsubscribe(token, at: coordinate, named: name)
            context.logger.debug("location removed", metadata: ["token": "\(token.redacted)", "removed": "\(removed)"])
            return JSONResponse.deviceData(.ok, ["removed": removed])
        }
    }

    /// `/v1/devices/{token}`: register or update, read, delete.
    func addDevices(to routes: RouteBuilder) {
        routes.on(.put, "/v1/devices/{token}") { request, context in
            let body = try await JSONBody.decodeIfPresent(DeviceBody.self, from: request, context: context)
            let registration = try Self.validated { () throws(ValidationError) in
                try WireValidation.registration(rawToken: Self.rawPathToken(context), body: body)
            }
            let token = registration.token
            let created = try await register(registration)
            guard let device = try await store.device(token) else {
                throw APIError.notFound("device \(token.redacted) vanished while registering")
            }
            context.logger.debug("device registered", metadata: ["token": "\(token.redacted)", "new": "\(created)"])
            return JSONResponse.deviceData(created ? .created : .ok, DeviceResponse(device, verificationRequired: verifiesDevices))
        }

        routes.on(.get, "/v1/devices/{token}") { _, context in
            let token = try await pathToken(context)
            guard let device = try await store.device(token) else {
                throw APIError.notFound("unknown device")
            }
            return JSONResponse.deviceData(.ok, DeviceResponse(device, verificationRequired: verifiesDevices))
        }

        routes.on(.delete, "/v1/devices/{token}") { _, context in
            let token = try await pathToken(context)
            guard try await store.deleteDevice(token) else {
                throw APIError.notFound("unknown device")
            }
            context.logger.debug("device deleted", metadata: ["token": "\(token.redacted)"])
            return Response(status: .noContent)
        }
    }

    /// `/v1/devices/{token}/subscriptions`: list, add, delete one.
    func addSubscriptions(to routes: RouteBuilder) {
        routes.on(.get, "/v1/devices/{token}/subscriptions") { _, context in
            let token = try await pathToken(context)
            guard try await store.device(token) != nil else {
                throw APIError.notFound("unknown device")
            }
            let list = try await store.subscriptions(of: token)
            return JSONResponse.deviceData(.ok, ["subscriptions": list.map { SubscriptionResponse($0) }])
        }

        routes.on(.post, "/v1/devices/{token}/subscriptions") { request, context in
            let token = try await pathToken(context)
            let body = try await JSONBody.decode(SubscriptionBody.self, from: request, context: context)
            let new = try Self.validated { () throws(ValidationError) in
                try WireValidation.newSubscription(
                    latitude: body.latitude, longitude: body.longitude, name: body.name, unit: body.unit,
                    settings: body.settings)
            }
            let change = try await subscribe(token, new, platform: token.formPlatform, request: request, context: context)
            return JSONResponse.deviceData(change.created ? .created : .ok, SubscriptionResponse(change.subscription, created: change.created))
        }

        routes.on(.delete, "/v1/devices/{token}/subscriptions/{id}") { _, context in
            let token = try await pathToken(context)
            guard let raw = context.parameters.get("id"), let id = Int64(raw), id > 0 else {
                throw APIError.badRequest(.invalidField, "subscription id must be a positive integer")
            }
            guard try await store.unsubscribe(token, id: id) else {
                throw APIError.notFound("unknown subscription")
            }
            return Response(status: .noContent)
        }
    }

    /// Registers a device this server can push to (`PushReach`); a token stored as another
    /// platform is refused (409 `platform_mismatch`).
    func register(_ registration: DeviceRegistration) async throws -> Bool {
        if !reach.takesEverything {
            let stored = try await store.device(registration.token)
            // A browser id no registration gave (or one deleted): unknown, whatever app it would need.
            if stored == nil, registration.token.formPlatform == .web { throw Self.unknownDevice(registration.token) }
            try admit(registration.platform, app: registration.app ?? stored?.app)
        }
        do {
            return try await store.register(registration, at: clock())
        } catch let error as PlatformMismatchError {
            throw APIError(.conflict, code: "platform_mismatch", error.message)
        } catch let error as UnknownDeviceError {
            throw Self.unknownDevice(error.token)
        }
    }

    static func unknownDevice(_ token: DeviceToken) -> APIError {
        APIError(.notFound, code: "unknown_device", UnknownDeviceError(token).message)
    }

    /// Answers a `PushReach` refusal: 409 for a platform without apps, 400 for an app.
    func admit(_ platform: DevicePlatform, app: String?) throws(APIError) {
        do {
            try reach.admit(platform, app: app)
        } catch {
            throw APIError(error.code == .platformNotConfigured ? .conflict : .badRequest, code: error.code.rawValue, error.message)
        }
    }

    /// Adds a subscription; a token not yet known registers a device of `platform` (so it
    /// must be one this server pushes to).
    func subscribe(
        _ token: DeviceToken, _ new: NewSubscription, platform: DevicePlatform, request: Request, context: FrostboxRequestContext
    ) async throws -> SubscriptionChange {
        let logger = context.logger
        if !reach.takesEverything, try await store.device(token) == nil {
            if token.formPlatform == .web { throw Self.unknownDevice(token) }
            try admit(platform, app: nil)
        }
        let forwardedFor = request.headers[values: .xForwardedFor]
        // A new box is charged to the client before the write and given back when the write
        // adds nothing (the device is full, unknown, or the database refused it).
        var charged: NewPlaceLimit?
        if let newPlaces, try await !store.hasSubscriptions(in: new.coordinate.box) {
            if let retryAfter = newPlaces.acquire(peer: context.remoteAddress, forwardedFor: forwardedFor) {
                var headers = HTTPFields()
                headers[.retryAfter] = String(retryAfter)
                throw APIError(
                    .tooManyRequests, code: "too_many_new_places",
                    "this client has added too many places where nobody subscribed before; retry after \(retryAfter) s", headers: headers)
            }
            charged = newPlaces
        }
        do {
            let change = try await store.subscribe(token, to: new, at: clock())
            // Another request added the box's first place meanwhile: this one added no box.
            if !change.created { charged?.giveBack(peer: context.remoteAddress, forwardedFor: forwardedFor) }
            logger.debug(
                "location added",
                metadata: ["token": "\(token.redacted)", "box": "\(change.subscription.box)", "new": "\(change.created)"])
            return change
        } catch {
            charged?.giveBack(peer: context.remoteAddress, forwardedFor: forwardedFor)
            switch error {
            case let error as StoreLimitError: throw APIError(.conflict, code: "subscription_limit", error.message)
            case let error as UnknownDeviceError: throw Self.unknownDevice(error.token)
            default: throw error
            }
        }
    }

    /// The device a path names. The path does not say the platform, and an iOS token is
    /// accepted in upper case while an Android token is kept exactly as sent: a path that is
    /// an Android token's exact form names that device when one is stored, so that case
    /// variants of an all-hex Android token never reach the iOS device of the lower-case form.
    func pathToken(_ context: FrostboxRequestContext) async throws -> DeviceToken {
        let raw = Self.rawPathToken(context)
        let token = try Self.validated { () throws(ValidationError) in try WireValidation.token(raw) }
        guard token.value != raw, let exact = try? DeviceToken(raw, platform: .android) else { return token }
        return try await store.device(exact) != nil ? exact : token
    }

    static func rawPathToken(_ context: FrostboxRequestContext) -> String {
        let raw = context.parameters.get("token") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    /// Runs core validation, answering its failure as a 400.
    static func validated<T>(_ body: () throws(ValidationError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch {
            throw APIError(error)
        }
    }
}
