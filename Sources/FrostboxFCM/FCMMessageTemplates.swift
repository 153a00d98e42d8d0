import FrostboxCore
import NIOCore
import Synchronization

/// The message bodies of one app, rendered fast: the JSON of an alert differs between its
/// devices only in the token, the alert id and the TTL, so it is rendered once per alert (by
/// `FCMMessageRenderer`, with markers in those three places) and each device's body is the
/// template's bytes with its own three values written in. Same bytes as the renderer's, a
/// fraction of the work. Templates are kept for the last `capacity` distinct alerts.
final class FCMMessageTemplates: Sendable {
    private struct Key: Hashable {
        var content: AlertContent
        var collapseID: String?
        var immediate: Bool
        var expires: Bool
    }

    /// The body cut at its holes: `parts[0] hole[0] parts[1] hole[1] …`.
    private struct Template {
        var parts: [[UInt8]]
        var holes: [Hole]
        var size: Int
    }

    private enum Hole: UInt8 {
        case token = 0x54  // T
        case alertID = 0x41  // A
        case ttl = 0x4C  // L
    }

    let renderer: FCMMessageRenderer
    let capacity: Int
    private let cache = Mutex<[Key: Template]>([:])

    init(renderer: FCMMessageRenderer, capacity: Int = 4_096) {
        self.renderer = renderer
        self.capacity = capacity
    }

    /// The body of `notification`, `now` being UTC epoch seconds (for the TTL).
    func body(for notification: PushNotification, now: Int64) -> ByteBuffer {
        guard notification.purpose != .verification else { return ByteBuffer(bytes: renderer.render(notification, now: now)) }
        let key = Key(
            content: notification.content, collapseID: notification.collapseID, immediate: notification.priority == .immediate,
            expires: notification.expiration != nil)
        let template: Template
        if let cached = cache.withLock({ $0[key] }) {
            template = cached
        } else if let made = makeTemplate(notification) {
            template = made
            cache.withLock { cache in
                if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
                cache[key] = made
            }
        } else {
            // Markers the alert's own text happened to contain: render this one whole.
            return ByteBuffer(bytes: renderer.render(notification, now: now))
        }
        let ttl = notification.expiration.map { "\(max(0, $0 - now))s" } ?? ""
        var buffer = ByteBufferAllocator().buffer(capacity: template.size + notification.token.value.utf8.count + 64)
        for (index, part) in template.parts.enumerated() {
            buffer.writeBytes(part)
            guard index < template.holes.count else { break }
            switch template.holes[index] {
            case .token: Self.writeEscaped(notification.token.value, to: &buffer)
            case .alertID: Self.writeEscaped(notification.messageID, to: &buffer)
            case .ttl: buffer.writeString(ttl)
            }
        }
        return buffer
    }

    /// The alert rendered with markers (`\u0001T`, `\u0001A`, `\u0001L` as JSON writes them) in
    /// the three places, cut there; nil unless each marker appears exactly where expected.
    private func makeTemplate(_ notification: PushNotification) -> Template? {
        var marked = notification
        marked.token = DeviceToken(trusted: "\u{1}T")
        marked.messageID = "\u{1}A"
        let expires = notification.expiration != nil
        // A TTL of "\u{1}L" cannot come from an expiry; the renderer writes it from this one.
        let rendered = Array(renderer.render(marked, now: 0, ttlOverride: expires ? "\u{1}L" : nil))
        let marker: [UInt8] = Array(#"\u0001"#.utf8)
        var parts: [[UInt8]] = []
        var holes: [Hole] = []
        var start = 0
        var index = 0
        while index + marker.count < rendered.count {
            if rendered[index..<(index + marker.count)].elementsEqual(marker), let hole = Hole(rawValue: rendered[index + marker.count]) {
                parts.append(Array(rendered[start..<index]))
                holes.append(hole)
                index += marker.count + 1
                start = index
            } else {
                index += 1
            }
        }
        parts.append(Array(rendered[start...]))
        let expected: [Hole] = expires ? [.token, .alertID, .ttl] : [.token, .alertID]
        guard holes.count == expected.count, Set(holes) == Set(expected) else { return nil }
        return Template(parts: parts, holes: holes, size: rendered.count)
    }

    /// `value` as the inside of a JSON string.
    static func writeEscaped(_ value: String, to buffer: inout ByteBuffer) {
        // Tokens and ids need no escape: written whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            buffer.writeString(value)
            return
        }
        for byte in value.utf8 {
            switch byte {
            case 0x22: buffer.writeStaticString(#"\""#)
            case 0x5C: buffer.writeStaticString(#"\\"#)
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                buffer.writeStaticString(#"\u00"#)
                buffer.writeInteger(hex[Int(byte >> 4)])
                buffer.writeInteger(hex[Int(byte & 0x0F)])
            default: buffer.writeInteger(byte)
            }
        }
    }
}
