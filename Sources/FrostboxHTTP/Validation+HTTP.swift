import FrostboxCore

/// Validation of wire values into core types; every failure is a `ValidationError` (400).
enum WireValidation {
    /// A token whose platform is not said (lookups): an APNs token when it is one, otherwise
    /// an FCM registration token.
    static func token(_ raw: String) throws(ValidationError) -> DeviceToken {
        try DeviceToken(raw)
    }

    /// `platform` as a client sends it; absent is `ios` (what the existing app sends).
    static func platform(_ raw: String?) throws(ValidationError) -> DevicePlatform {
        guard let raw else { return .ios }
        guard let platform = DevicePlatform(rawValue: raw) else {
            throw ValidationError(.invalidField, field: "platform", "platform must be ios, android or web")
        }
        return platform
    }

    /// `platform` on the routes of the existing app (`/register`, `/add_location`,
    /// `/remove_location`): iOS or Android only (a browser registers its push subscription
    /// with `POST /v1/devices`).
    static func legacyPlatform(_ raw: String?) throws(ValidationError) -> DevicePlatform {
        guard let raw else { return .ios }
        guard let platform = DevicePlatform(rawValue: raw), platform != .web else {
            throw ValidationError(
                .invalidField, field: "platform", "platform must be ios or android here (a browser registers with POST /v1/devices)")
        }
        return platform
    }

    static func newSubscription(
        latitude: FlexibleNumber, longitude: FlexibleNumber, name: String, unit: String?, settings: SettingsBody?
    ) throws(ValidationError) -> NewSubscription {
        let coordinate = try Coordinate(latitude: latitude.value, longitude: longitude.value)
        return NewSubscription(
            coordinate: coordinate, name: try PlaceName(name), unit: try TemperatureUnit(parsing: unit),
            settings: try self.settings(settings))
    }

    static func settings(_ body: SettingsBody?) throws(ValidationError) -> AlertSettings {
        guard let body else { return .default }
        if let rule = body.rule, FrostRule.presets[rule] == nil {
            throw ValidationError(.invalidField, field: "settings.rule", "settings.rule must be one of \(FrostRule.presetNames.joined(separator: ", "))")
        }
        for (field, value) in [("frost_risk_c", body.frostRiskC), ("freeze_c", body.freezeC), ("hard_freeze_c", body.hardFreezeC)] {
            if let value, !(value.isFinite && (-60...20).contains(value)) {
                throw ValidationError(.invalidField, field: "settings.\(field)", "settings.\(field) must be between -60 and 20 °C")
            }
        }
        if let chance = body.minProbability, !(chance.isFinite && (0...1).contains(chance)) {
            throw ValidationError(
                .invalidField, field: "settings.min_probability",
                "settings.min_probability must be between 0 and 1 (0.7 alerts at a 70 % chance of frost; 0 by the forecast alone)")
        }
        return AlertSettings(
            rule: body.rule, frostRiskC: body.frostRiskC, freezeC: body.freezeC, hardFreezeC: body.hardFreezeC,
            allClear: body.allClear ?? false,
            window: try DeliveryWindow.parsing(after: body.notifyAfter, before: body.notifyBefore, field: "settings"),
            minProbability: body.minProbability)
    }

    /// The registration a client asks for: the token validated as its platform's (`platform`
    /// absent is `ios`), the app named by `app` (or its older name `topic`).
    static func registration(rawToken: String, body: DeviceBody?) throws(ValidationError) -> DeviceRegistration {
        // Absent: iOS (what the existing app sends), but for a browser's device id.
        let platform =
            try body?.platform.map { raw throws(ValidationError) in try self.platform(raw) }
            ?? ((try? DeviceToken(rawToken, platform: .web)) != nil ? .web : .ios)
        var registration = DeviceRegistration(token: try DeviceToken(rawToken, platform: platform), platform: platform)
        guard let body else { return registration }
        try facts(body, into: &registration)
        return registration
    }

    /// The facts of a device body (app, environment, locale, quiet hours) into `registration`.
    static func facts(_ body: DeviceBody, into registration: inout DeviceRegistration) throws(ValidationError) {
        let platform = registration.platform
        if let app = body.app, let topic = body.topic, app != topic {
            throw ValidationError(.invalidField, field: "app", "app and topic name the same thing; send one of them")
        }
        if let app = body.app ?? body.topic {
            let field = body.app != nil ? "app" : "topic"
            guard (1...255).contains(app.utf8.count),
                app.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_" })
            else {
                throw ValidationError(
                    .invalidField, field: field, "\(field) must be a bundle id or package name (letters, digits, '.', '-', '_')")
            }
            registration.app = app
        }
        if body.environment != nil, platform != .ios {
            throw ValidationError(.invalidField, field: "environment", "environment applies to iOS devices only")
        }
        if let environment = body.environment {
            guard let value = PushEnvironment(rawValue: environment) else {
                throw ValidationError(.invalidField, field: "environment", "environment must be production or sandbox")
            }
            registration.environment = value
        }
        if let locale = body.locale {
            guard (1...35).contains(locale.utf8.count),
                locale.unicodeScalars.allSatisfy({ ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
            else {
                throw ValidationError(.invalidField, field: "locale", "locale must be a BCP 47 tag such as fi-FI")
            }
            registration.locale = locale
        }
        switch body.quietHours {
        case .absent: break
        case .null: registration.quietHours = .clear
        case .span(let span): registration.quietHours = .set(try QuietHours(start: span.start, end: span.end, field: "quiet_hours"))
        }
        registration.hardFreezeBreaksQuietHours = body.hardFreezeBreaksQuietHours
    }
}
