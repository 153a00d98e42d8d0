import FrostboxCore
import Synchronization

/// Every browser of one alert gets the same payload but for its `alert_id`, so the JSON is
/// encoded once per alert and each device's plaintext is that template with its id written in:
/// the same bytes as `WebPushPayload.render` (tested), without a `JSONEncoder` per device, which
/// was a tenth of a browser push's CPU (docs/benchmarks.md, "Web Push sends").
package final class WebPushPayloadTemplates: Sendable {
    /// What a payload depends on besides the alert id.
    private struct Key: Hashable {
        var purpose: PushPurpose
        var content: AlertContent
        var collapseID: String?
    }

    /// Templates kept at most; all are dropped when full (a run has a few alerts at a time).
    static let capacity = 256
    /// Every payload begins so (sorted keys: `alert_id` first), the id then a closing quote.
    private static let opening = Array(#"{"alert_id":""#.utf8)
    /// The bytes after the id's closing quote, by what they depend on.
    private let tails = Mutex<[Key: [UInt8]]>([:])

    package init() {}

    /// The plaintext of `notification`, as `WebPushPayload.render` makes it.
    package func render(_ notification: PushNotification) -> [UInt8] {
        let id = notification.messageID.utf8
        // An id JSON would escape (never a UUID) is rendered whole.
        guard id.allSatisfy({ $0 >= 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            return WebPushPayload.render(notification)
        }
        let key = Key(purpose: notification.purpose, content: notification.content, collapseID: notification.collapseID)
        let tail: [UInt8]
        if let kept = tails.withLock({ $0[key] }) {
            tail = kept
        } else {
            var blank = notification
            blank.messageID = ""
            let whole = WebPushPayload.render(blank)
            guard whole.starts(with: Self.opening + [UInt8(ascii: "\"")]) else { return WebPushPayload.render(notification) }
            tail = Array(whole.dropFirst(Self.opening.count + 1))
            tails.withLock { tails in
                if tails.count >= Self.capacity { tails.removeAll(keepingCapacity: true) }
                tails[key] = tail
            }
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(Self.opening.count + id.count + 1 + tail.count)
        payload += Self.opening
        payload += id
        payload.append(UInt8(ascii: "\""))
        payload += tail
        return payload
    }
}
