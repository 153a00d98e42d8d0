import FrostboxCore
import Synchronization

/// Every browser of one alert gets the same payload but for its `alert_id`, so the JSON is
/// encoded once per alert and each device's plaintext is that template with its id written in:
/// the same bytes as `WebPushPayload.render` (tested), without a `JSONEncoder` per device, which
/// was a tenth of a browser push's CPU (docs/benchmarks.md, "Web Push sends"). The alert's
/// `Topic` (a SHA-256 of its collapse id) is kept with its template, made once per alert too.
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
    /// What is kept per alert: the bytes after the id's closing quote (nil when the render does
    /// not begin as `opening` says, then every payload of the alert is rendered whole), and the
    /// topic.
    private struct Template {
        var tail: [UInt8]?
        var topic: String?
    }

    /// The templates, by what they depend on, and the one used last.
    private struct Kept {
        var templates: [Key: Template] = [:]
        /// A batch holds runs of one alert's devices, whose contents share their strings'
        /// storage: comparing with the last key is then a few pointer checks, where the
        /// dictionary hashes every string of the alert (its non-ASCII text normalized first).
        var last: (key: Key, template: Template)?
    }
    private let kept = Mutex(Kept())

    package init() {}

    /// The plaintext of `notification`, as `WebPushPayload.render` makes it.
    package func render(_ notification: PushNotification) -> [UInt8] { parts(notification).plaintext }

    /// The plaintext of `notification`, as `WebPushPayload.render` makes it, and its `Topic`
    /// (`WebPushPlatform.topic` of its collapse id; nil without one).
    package func parts(_ notification: PushNotification) -> (plaintext: [UInt8], topic: String?) {
        let template = template(of: notification)
        let id = notification.messageID.utf8
        // An id JSON would escape (never a UUID) is rendered whole.
        guard let tail = template.tail, id.allSatisfy({ $0 >= 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return (WebPushPayload.render(notification), template.topic) }
        var payload: [UInt8] = []
        payload.reserveCapacity(Self.opening.count + id.count + 1 + tail.count)
        payload += Self.opening
        payload += id
        payload.append(UInt8(ascii: "\""))
        payload += tail
        return (payload, template.topic)
    }

    /// The template of `notification`'s alert: the one used last or kept, else made and kept.
    private func template(of notification: PushNotification) -> Template {
        let key = Key(purpose: notification.purpose, content: notification.content, collapseID: notification.collapseID)
        let found = kept.withLock { kept -> Template? in
            if let last = kept.last, last.key == key { return last.template }
            guard let template = kept.templates[key] else { return nil }
            kept.last = (key, template)
            return template
        }
        if let found { return found }
        var blank = notification
        blank.messageID = ""
        let whole = WebPushPayload.render(blank)
        let template = Template(
            tail: whole.starts(with: Self.opening + [UInt8(ascii: "\"")]) ? Array(whole.dropFirst(Self.opening.count + 1)) : nil,
            topic: notification.collapseID.map(WebPushPlatform.topic))
        kept.withLock { kept in
            if kept.templates.count >= Self.capacity { kept.templates.removeAll(keepingCapacity: true) }
            kept.templates[key] = template
            kept.last = (key, template)
        }
        return template
    }
}
