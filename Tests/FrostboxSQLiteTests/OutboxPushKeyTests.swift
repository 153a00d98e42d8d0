import FrostboxCore
import FrostboxStorageFormats
import Testing

/// `OutboxPush.ExactKey`: the writers find a batch's stored copy of a push by it.
@Suite("Outbox push keys")
struct OutboxPushKeyTests {
    static func push(body: String, collapseID: String? = "frost-1", minimumC: Double? = -2.5) -> OutboxPush {
        let content = AlertContent(
            title: "Freeze tonight", body: body, bodyLocKey: "FROST_FREEZE_TONIGHT", bodyLocArgs: [body],
            frost: FrostData(box: "60.20,25.00", night: "2026-11-24", level: "freeze", minimumC: minimumC))
        return OutboxPush(
            PushNotification(
                token: DeviceToken(trusted: "a11ce000000000000000000000000001"), messageID: "m", collapseID: collapseID, priority: .immediate,
                expiration: 100, content: content))
    }

    @Test("equal pushes are one key with one hash; a different body, collapse id or minimum is another key")
    func equalAndDifferent() {
        let a = OutboxPush.ExactKey(Self.push(body: "Hämeenlinna: low −2 °C"))
        let b = OutboxPush.ExactKey(Self.push(body: "Hämeenlinna: low −2 °C"))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        let keys: Set = [
            a, OutboxPush.ExactKey(Self.push(body: "Hämeenlinna: low −3 °C")), OutboxPush.ExactKey(Self.push(body: "Hämeenlinna: low −2 °C", collapseID: nil)),
            OutboxPush.ExactKey(Self.push(body: "Hämeenlinna: low −2 °C", minimumC: -3)),
        ]
        #expect(keys.count == 4)
    }

    @Test("text equal only after Unicode normalisation is two keys, though the pushes compare equal")
    func normalForms() {
        let composed = Self.push(body: "H\u{E4}meenlinna")
        let decomposed = Self.push(body: "Ha\u{308}meenlinna")
        #expect(composed == decomposed)
        #expect(OutboxPush.ExactKey(composed) != OutboxPush.ExactKey(decomposed))
        #expect(Set([OutboxPush.ExactKey(composed), OutboxPush.ExactKey(decomposed)]).count == 2)
    }
}
