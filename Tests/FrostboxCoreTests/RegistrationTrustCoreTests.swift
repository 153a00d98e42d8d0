import FrostboxCore
import Testing

/// The pure rules behind issue #43: which registrations a deployment takes, one prune rule
/// for every push, tokens that never log whole, names that show what they say.
@Suite("Registration trust rules")
struct RegistrationTrustCoreTests {
    @Test("no app anywhere takes everything; a platform without apps refuses; apps refuse others and need a default or a name")
    func reach() throws {
        #expect(PushReach.logOnly.takesEverything)
        try PushReach.logOnly.admit(.android, app: "anything")
        let reach = PushReach([.ios: .apps(["a.b", "c.d"], defaultApp: nil), .android: .notConfigured])
        #expect(!reach.takesEverything)
        #expect(throws: RegistrationRefusal.self) { try reach.admit(.android, app: nil) }
        #expect(throws: RegistrationRefusal.self) { try reach.admit(.ios, app: nil) }
        #expect(throws: RegistrationRefusal.self) { try reach.admit(.ios, app: "e.f") }
        try reach.admit(.ios, app: "c.d")
        let codes = [(DevicePlatform.android, String?.none), (.ios, nil), (.ios, "e.f")].map { platform, app -> String? in
            do throws(RegistrationRefusal) {
                try reach.admit(platform, app: app)
                return nil
            } catch {
                return error.code.rawValue
            }
        }
        #expect(codes == ["platform_not_configured", "app_required", "unknown_app"])
        let single = PushReach([.ios: .apps(["a.b"], defaultApp: "a.b")])
        try single.admit(.ios, app: nil)
    }

    @Test("a prune follows the gateway's timestamp when it gives one, the send time otherwise")
    func pruneCutoff() {
        #expect(PushOutcome.invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: 5_000_999).pruneCutoff(sentAt: 9_000) == 5_000)
        #expect(PushOutcome.invalidToken(reason: "UNREGISTERED", unregisteredAtMilliseconds: nil).pruneCutoff(sentAt: 9_000) == 9_000)
        #expect(PushOutcome.permanentFailure(status: 400, reason: "DeviceTokenNotForTopic").pruneCutoff(sentAt: 9_000) == 9_000)
    }

    @Test("a short token logs as a hash prefix, never whole; a long one as its ends")
    func shortTokensRedacted() throws {
        for raw in ["x", "abc:DEF_1", "fJ3kX9Qr:APA91b"] {
            let token = try DeviceToken(raw, platform: .android)
            #expect(!token.redacted.contains(raw) && token.redacted.hasPrefix("#") && token.redacted.count == 9, "\(token.redacted)")
        }
        #expect(try DeviceToken("a", platform: .android).redacted != DeviceToken("b", platform: .android).redacted)
        let hex16 = try DeviceToken("0123456789abcdef")
        #expect(!hex16.redacted.contains("0123456789abcdef") && hex16.redacted.hasPrefix("#"))
        #expect(try DeviceToken("0123456789abcdef0123456789abcdef").redacted == "012345…cdef")
    }

    @Test("names of only invisible characters are refused; bidi controls are stripped")
    func visibleNames() throws {
        for invisible in ["\u{200B}", "\u{200B}\u{200C}\u{200D}\u{2060}", "\u{FEFF}", "\u{3164}", " \u{2800} ", "\u{202E}\u{200B}"] {
            #expect(throws: ValidationError.self) { try PlaceName(invisible) }
        }
        #expect(try PlaceName("\u{202E}emoH").value == "emoH")
        #expect(try PlaceName("Home\u{2066}\u{202E}x\u{2069}").value == "Homex")
        #expect(try PlaceName("Koti 🏡").value == "Koti 🏡")
        #expect(try PlaceName("ٱلبيت").value == "ٱلبيت")
    }

    @Test("a name's length is counted in code points, as the stores count it: 200 of them with combining marks or flags pass, 201 do not")
    func nameLengthInCodePoints() throws {
        #expect(try PlaceName(String(repeating: "e\u{301}", count: 100)).value.unicodeScalars.count == 200)
        #expect(try PlaceName(String(repeating: "x", count: 200)).value.count == 200)
        for tooLong in [String(repeating: "e\u{301}", count: 101), String(repeating: "\u{1F1EB}\u{1F1EE}", count: 101), String(repeating: "x", count: 201)] {
            #expect(throws: ValidationError.self) { try PlaceName(tooLong) }
        }
    }
}
