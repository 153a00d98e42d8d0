import Foundation

/// Checks a `messages:send` body against the v1 schema as FCM does: only known fields (in
/// snake_case or lowerCamelCase, as proto JSON allows), strings where strings are due (every
/// `data` value), durations as `"<seconds>[.<fraction>]s"`, enums by name, exactly one
/// target. A refusal carries FCM's message and the offending field path.
enum MockFCMValidator {
    /// A message the double accepts, with what its deliveries record.
    struct Accepted: Sendable {
        var token: String
        var data: [String: String]
        var collapseKey: String?
        var ttl: String?
        var priority: String?
    }

    /// Why FCM would answer 400 INVALID_ARGUMENT.
    struct Refusal: Error, Sendable {
        var message: String
        var field: String
    }

    indirect enum Shape {
        case string, bool, integer, stringArray, stringMap, duration, object([String: Shape])
        case enumeration(Set<String>)
    }

    static let androidNotification: [String: Shape] = [
        "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string, "click_action": .string,
        "body_loc_key": .string, "body_loc_args": .stringArray, "title_loc_key": .string, "title_loc_args": .stringArray,
        "channel_id": .string, "ticker": .string, "sticky": .bool, "event_time": .string, "local_only": .bool,
        "notification_priority": .enumeration([
            "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX",
        ]),
        "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool, "vibrate_timings": .stringArray,
        "visibility": .enumeration(["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]), "notification_count": .integer,
        "image": .string, "bypass_proxy_notification": .bool, "proxy": .enumeration(["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]),
    ]

    static let message: [String: Shape] = [
        "name": .string, "token": .string, "topic": .string, "condition": .string, "data": .stringMap,
        "notification": .object(["title": .string, "body": .string, "image": .string]),
        "android": .object([
            "collapse_key": .string, "priority": .enumeration(["NORMAL", "HIGH"]), "ttl": .duration, "restricted_package_name": .string,
            "data": .stringMap, "notification": .object(androidNotification), "fcm_options": .object(["analytics_label": .string]),
            "direct_boot_ok": .bool,
        ]),
        "fcm_options": .object(["analytics_label": .string]),
    ]

    /// Validates a request body.
    static func validate(_ body: Data) -> Result<Accepted, Refusal> {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return .failure(Refusal(message: "Invalid JSON payload received.", field: ""))
        }
        for key in root.keys where snake(key) != "message" && snake(key) != "validate_only" {
            return .failure(Refusal(message: #"Invalid JSON payload received. Unknown name "\#(key)": Cannot find field."#, field: key))
        }
        guard let message = (root["message"] as? [String: Any]) else {
            return .failure(Refusal(message: "Request contains an invalid argument.", field: "message"))
        }
        if let refusal = check(message, shape: message.isEmpty ? [:] : Self.message, path: "message") {
            return .failure(refusal)
        }
        let fields = normalized(message)
        let targets = ["token", "topic", "condition"].filter { fields[$0] != nil }
        guard targets == ["token"], let token = fields["token"] as? String, !token.isEmpty else {
            return .failure(Refusal(message: "Request contains an invalid argument.", field: "message.token"))
        }
        let android = normalized(fields["android"] as? [String: Any] ?? [:])
        return .success(
            Accepted(
                token: token, data: fields["data"] as? [String: String] ?? [:], collapseKey: android["collapse_key"] as? String,
                ttl: android["ttl"] as? String, priority: android["priority"] as? String))
    }

    private static func check(_ object: [String: Any], shape: [String: Shape], path: String) -> Refusal? {
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let expected = shape[snake(key)] else {
                return Refusal(message: #"Invalid JSON payload received. Unknown name "\#(key)" at '\#(path)': Cannot find field."#, field: path)
            }
            if let refusal = check(value, shape: expected, path: path + "." + key) { return refusal }
        }
        return nil
    }

    private static func check(_ value: Any, shape: Shape, path: String) -> Refusal? {
        func wrong(_ type: String) -> Refusal {
            Refusal(message: "Invalid value at '\(path)' (\(type)), \(describe(value))", field: path)
        }
        switch shape {
        case .string:
            return value is String ? nil : wrong("TYPE_STRING")
        case .bool:
            return isBool(value) ? nil : wrong("TYPE_BOOL")
        case .integer:
            return (value is NSNumber && !isBool(value)) ? nil : wrong("TYPE_INT32")
        case .stringArray:
            guard let array = value as? [Any] else { return wrong("TYPE_STRING") }
            for (index, element) in array.enumerated() where !(element is String) {
                return check(element, shape: .string, path: "\(path)[\(index)]")
            }
            return nil
        case .stringMap:
            guard let map = value as? [String: Any] else { return wrong("TYPE_MESSAGE") }
            for (index, key) in map.keys.sorted().enumerated() where !(map[key] is String) {
                return Refusal(message: "Invalid value at '\(path)[\(index)].value' (TYPE_STRING), \(describe(map[key]!))", field: "\(path)[\(index)].value")
            }
            return nil
        case .duration:
            guard let text = value as? String, text.range(of: #"^[0-9]+(\.[0-9]{1,9})?s$"#, options: .regularExpression) != nil else {
                return Refusal(message: "Invalid value at '\(path)' (type.googleapis.com/google.protobuf.Duration), \(describe(value))", field: path)
            }
            return nil
        case .enumeration(let names):
            guard let text = value as? String, names.contains(text) else {
                return Refusal(message: "Invalid value at '\(path)' (TYPE_ENUM), \(describe(value))", field: path)
            }
            return nil
        case .object(let fields):
            guard let object = value as? [String: Any] else { return wrong("TYPE_MESSAGE") }
            return check(object, shape: fields, path: path)
        }
    }

    /// lowerCamelCase → snake_case, as proto JSON maps names.
    static func snake(_ key: String) -> String {
        var out = ""
        for character in key {
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }

    private static func normalized(_ object: [String: Any]) -> [String: Any] {
        Dictionary(object.map { (snake($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    private static func isBool(_ value: Any) -> Bool {
        if value is Bool, !(value is NSNumber) { return true }
        // JSONSerialization reads true and false as NSNumbers made from a Bool ("c", a char).
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    private static func describe(_ value: Any) -> String {
        if let text = value as? String { return "\"\(text)\"" }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(value)"
    }
}
