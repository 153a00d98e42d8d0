import FrostboxCore
import Hummingbird

/// What the device API needs to take browsers: the check of their subscriptions, the VAPID
/// public key of each Web Push app, and where new device ids come from.
public struct WebPushRegistration: Sendable {
    /// Decides whether a subscription's push service is allowed.
    let admission: any WebPushAdmission
    /// Each Web Push app's VAPID public key (base64url), by app name.
    let publicKeys: [String: String]
    /// The app a browser that names none belongs to.
    let defaultApp: String?
    /// A new, random browser device id (`DeviceToken.webID(random:)`).
    let newID: @Sendable () -> DeviceToken

    public init(
        admission: any WebPushAdmission, publicKeys: [String: String], defaultApp: String?,
        newID: @escaping @Sendable () -> DeviceToken = WebPushRegistration.randomID
    ) {
        self.admission = admission
        self.publicKeys = publicKeys
        self.defaultApp = defaultApp ?? (publicKeys.count == 1 ? publicKeys.keys.first : nil)
        self.newID = newID
    }

    /// A browser device id from the system's random bytes.
    @Sendable public static func randomID() -> DeviceToken {
        var generator = SystemRandomNumberGenerator()
        return DeviceToken.webID(random: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

/// Browsers (issue #46): `POST /v1/devices` registers a push subscription and answers the
/// device id every later call names it by; `GET /v1/web-push/public-key` gives a page its
/// `applicationServerKey`.
extension DeviceRoutes {
    func addWebPush(to routes: RouteBuilder, _ web: WebPushRegistration) {
        routes.on(.post, "/v1/devices") { request, context in
            let body = try await JSONBody.decode(WebDeviceBody.self, from: request, context: context)
            let (registration, subscription) = try Self.validated { () throws(ValidationError) in
                try Self.webRegistration(body, placeholder: web.newID())
            }
            do throws(ValidationError) {
                try await web.admission.admit(subscription)
            } catch {
                throw APIError(Self.underSubscription(error))
            }
            if !reach.takesEverything {
                // Registered again without naming its app: the app it was registered with.
                var app = registration.app
                if app == nil, case .apps(_, defaultApp: nil) = reach.reach(.web) { app = try await store.webDevice(at: subscription.endpoint)?.app }
                try admit(.web, app: app)
            }
            let (token, created): (DeviceToken, Bool)
            do {
                (token, created) = try await store.registerWebPush(registration, newID: registration.token, at: clock())
            } catch let error as PlatformMismatchError {
                throw APIError(.conflict, code: "platform_mismatch", error.message)
            }
            guard let device = try await store.device(token) else {
                throw APIError.notFound("device \(token.redacted) vanished while registering")
            }
            context.logger.debug(
                "browser registered",
                metadata: ["token": "\(token.redacted)", "endpoint": "\(subscription.endpoint)", "new": "\(created)"])
            return JSONResponse.deviceData(created ? .created : .ok, DeviceResponse(device, verificationRequired: verifiesDevices))
        }

        routes.on(.get, "/v1/web-push/public-key") { request, _ in
            guard !web.publicKeys.isEmpty else {
                throw APIError(.notFound, code: "web_push_not_configured", "this server has no Web Push app (webpush.apps in its configuration)")
            }
            let asked = request.uri.queryParameters["app"].map(String.init)
            guard let app = asked ?? web.defaultApp else {
                throw APIError(
                    .badRequest, code: "app_required",
                    "app is required: this server has \(web.publicKeys.count) Web Push apps configured and none is the default")
            }
            guard let key = web.publicKeys[app] else {
                throw APIError(.notFound, code: "unknown_app", "app is not one this server pushes for")
            }
            return JSONResponse.deviceData(.ok, WebPushPublicKeyResponse(app: app, publicKey: key))
        }
    }

    /// The registration a browser's body asks for, named `placeholder` until the store says
    /// which device the endpoint is.
    static func webRegistration(
        _ body: WebDeviceBody, placeholder: DeviceToken
    ) throws(ValidationError) -> (DeviceRegistration, WebPushSubscription) {
        guard body.platform == DevicePlatform.web.rawValue else {
            throw ValidationError(
                .invalidField, field: "platform",
                "POST /v1/devices registers browsers (\"platform\": \"web\"); iOS and Android devices register with PUT /v1/devices/{token}")
        }
        let subscription: WebPushSubscription
        do {
            subscription = try WebPushSubscription(
                endpoint: body.subscription.endpoint, p256dh: body.subscription.keys.p256dh, auth: body.subscription.keys.auth)
        } catch {
            throw underSubscription(error)
        }
        var registration = DeviceRegistration(token: placeholder, platform: .web)
        try WireValidation.facts(body.deviceBody, into: &registration)
        registration.webPush = subscription
        return (registration, subscription)
    }

    /// A subscription's validation error with its field named from the body (`subscription.endpoint`).
    static func underSubscription(_ error: ValidationError) -> ValidationError {
        guard let field = error.field, !field.hasPrefix("subscription.") else { return error }
        return ValidationError(error.code, field: "subscription." + field, error.message.replacingOccurrences(of: field, with: "subscription." + field))
    }
}
