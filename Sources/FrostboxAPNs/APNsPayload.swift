import FrostboxCore

/// An alert's content as APNs' JSON payload: the `aps` dictionary (alert text and
/// localisation keys, sound, thread-id, interruption-level) plus Frostbox's `frost` data.
/// Encoded with sorted keys and nil members left out, so the same alert is the same bytes on
/// every attempt and every run.
struct APNsPayload: Encodable, Hashable {
    struct APS: Encodable, Hashable {
        struct Alert: Encodable, Hashable {
            var title: String?
            var body: String?
            var titleLocKey: String?
            var titleLocArgs: [String]?
            var locKey: String?
            var locArgs: [String]?

            enum CodingKeys: String, CodingKey {
                case title, body
                case titleLocKey = "title-loc-key"
                case titleLocArgs = "title-loc-args"
                case locKey = "loc-key"
                case locArgs = "loc-args"
            }
        }

        var alert: Alert?
        var sound: String?
        var threadID: String?
        var interruptionLevel: String?

        enum CodingKeys: String, CodingKey {
            case alert, sound
            case threadID = "thread-id"
            case interruptionLevel = "interruption-level"
        }
    }

    struct Frost: Encodable, Hashable {
        var box: String
        var night: String
        var level: String
        var minimumC: Double?
        /// The chance of the level's frost, whole percent (alerts by probability only).
        var probability: Int?

        enum CodingKeys: String, CodingKey {
            case box, night, level, probability
            case minimumC = "minimum_c"
        }
    }

    var aps: APS
    var frost: Frost?

    init(_ content: AlertContent) {
        let hasAlert =
            [content.title, content.body, content.titleLocKey, content.bodyLocKey].contains { $0 != nil }
            || content.titleLocArgs != nil || content.bodyLocArgs != nil
        aps = APS(
            alert: hasAlert
                ? APS.Alert(
                    title: content.title, body: content.body, titleLocKey: content.titleLocKey, titleLocArgs: content.titleLocArgs,
                    locKey: content.bodyLocKey, locArgs: content.bodyLocArgs) : nil,
            sound: content.sound, threadID: content.group, interruptionLevel: content.interruption?.rawValue)
        frost = content.frost.map { Frost(box: $0.box, night: $0.night, level: $0.level, minimumC: $0.minimumC, probability: $0.probability) }
    }
}
