import FrostboxCore

extension PushPayload {
    /// The payload as compact JSON with sorted keys and nil members left out, written by hand:
    /// the outbox stores one per alert, and Foundation's encoder costs more than the rest of
    /// planning together. `JSONDecoder` reads it back into an equal value.
    public var outboxJSON: String {
        // Key names come from the payload types' CodingKeys (one source of truth); members are
        // written in sorted key order, as `.sortedKeys` would.
        typealias Keys = PushPayload.CodingKeys
        typealias APS = APSPayload.CodingKeys
        typealias Alert = APSPayload.Alert.CodingKeys
        typealias Frost = PushPayload.FrostData.CodingKeys
        var json = JSONWriter()
        json.object { json in
            json.key(Keys.aps.rawValue)
            json.object { json in
                if let alert = aps.alert {
                    json.key(APS.alert.rawValue)
                    json.object { json in
                        json.member(Alert.body.rawValue, alert.body)
                        json.member(Alert.locArgs.rawValue, alert.locArgs)
                        json.member(Alert.locKey.rawValue, alert.locKey)
                        json.member(Alert.title.rawValue, alert.title)
                        json.member(Alert.titleLocArgs.rawValue, alert.titleLocArgs)
                        json.member(Alert.titleLocKey.rawValue, alert.titleLocKey)
                    }
                }
                if let contentAvailable = aps.contentAvailable {
                    json.key(APS.contentAvailable.rawValue)
                    json.raw(String(contentAvailable))
                }
                json.member(APS.interruptionLevel.rawValue, aps.interruptionLevel)
                json.member(APS.sound.rawValue, aps.sound)
                json.member(APS.threadID.rawValue, aps.threadID)
            }
            if let frost {
                json.key(Keys.frost.rawValue)
                json.object { json in
                    json.member(Frost.box.rawValue, frost.box)
                    json.member(Frost.level.rawValue, frost.level)
                    if let minimum = frost.minimumC, minimum.isFinite {
                        json.key(Frost.minimumC.rawValue)
                        json.raw(minimum.description)
                    }
                    json.member(Frost.night.rawValue, frost.night)
                }
            }
        }
        return json.text
    }
}

/// A minimal JSON text builder: objects, string members, string arrays, raw numbers.
struct JSONWriter {
    private(set) var text = ""
    private var needsComma = false

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        text.append("{")
        needsComma = false
        body(&self)
        text.append("}")
        needsComma = true
    }

    mutating func key(_ name: String) {
        if needsComma { text.append(",") }
        string(name)
        text.append(":")
        needsComma = false
    }

    mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
        needsComma = true
    }

    mutating func member(_ name: String, _ values: [String]?) {
        guard let values else { return }
        key(name)
        text.append("[")
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(",") }
            string(value)
        }
        text.append("]")
        needsComma = true
    }

    mutating func raw(_ value: String) {
        text.append(value)
        needsComma = true
    }

    private mutating func string(_ value: String) {
        text.append("\"")
        // Most strings need no escaping: appended whole, not scalar by scalar.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text.append(value)
            text.append("\"")
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }
}
