import FrostboxCore

/// Validation of wire values into core types; every failure is a `ValidationError` (400).
enum WireValidation {
    static func token(_ raw: String) throws(ValidationError) -> DeviceToken {
        try DeviceToken(raw)
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
        return AlertSettings(
            rule: body.rule, frostRiskC: body.frostRiskC, freezeC: body.freezeC, hardFreezeC: body.hardFreezeC,
            allClear: body.allClear ?? false)
    }

    static func registration(token: DeviceToken, body: DeviceBody?) throws(ValidationError) -> DeviceRegistration {
        var registration = DeviceRegistration(token: token)
        guard let body else { return registration }
        if let topic = body.topic {
            guard (1...255).contains(topic.utf8.count),
                topic.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_" })
            else {
                throw ValidationError(.invalidField, field: "topic", "topic must be a bundle id (letters, digits, '.', '-', '_')")
            }
            registration.app = topic
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
        return registration
    }
}
