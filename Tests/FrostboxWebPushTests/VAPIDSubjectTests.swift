import FrostboxWebPush
import Testing

@Suite("VAPID subject")
struct VAPIDSubjectTests {
    @Test(
        "mailto: addresses and https URLs with a dotted host are accepted as written",
        arguments: [
            "mailto:ops@example.com", "mailto:frost.alerts+push@mail.example.co.uk", "mailto:o'brien@example.org",
            "https://example.com", "https://frost.example.com/contact", "https://example.com:8443/a/b?c=d#e",
            "https://xn--trms-zra.no/", "mailto:ops@xn--trms-zra.no",
        ])
    func accepted(text: String) throws {
        #expect(try VAPIDSubject(text).value == text)
    }

    @Test("the scheme is accepted in any case and written in lower case")
    func schemeLowered() throws {
        #expect(try VAPIDSubject("MAILTO:Ops@Example.com").value == "mailto:Ops@Example.com")
        #expect(try VAPIDSubject("HTTPS://Example.com/Contact").value == "https://Example.com/Contact")
    }

    @Test(
        "localhost, dotless hosts, IP addresses, other schemes and malformed addresses are refused",
        arguments: [
            "mailto:ops@localhost", "mailto:ops@push.localhost", "https://localhost", "https://localhost:8443/contact",
            "mailto:ops@example", "https://example", "https://intranet/contact", "https://192.168.1.10", "https://[::1]/",
            "http://example.com", "ops@example.com", "example.com", "", "mailto:", "mailto:@example.com", "mailto:ops@",
            "mailto:ops@@example.com", "mailto:a@b@example.com", "mailto:ops example@example.com", "mailto:\"ops\"@example.com",
            "mailto:.ops@example.com", "mailto:o..ps@example.com", "mailto:ops@example.com?subject=hi", "mailto:ops@-example.com",
            "mailto:ops@example..com", "mailto:ops@example.c", "https://", "https:///contact", "https://user:pass@example.com",
            "https://example.com:0", "https://example.com:99999", "https://example.com:port", "https://example.com/a b",
            "https://example.com/\"quoted\"", "https://exa_mple.com",
        ])
    func refused(text: String) throws {
        let error = try #require(throws: WebPushConfigurationError.self) { try VAPIDSubject(text) }
        #expect(error.message.contains("accepted: mailto:name@example.com or an https:// URL with a dotted host"))
    }

    @Test("the refusal of localhost and of a dotless host says why")
    func refusalNamesTheRule() throws {
        let localhost = try #require(throws: WebPushConfigurationError.self) { try VAPIDSubject("mailto:ops@localhost") }
        #expect(localhost.message.contains("localhost is not a public host"))
        let dotless = try #require(throws: WebPushConfigurationError.self) { try VAPIDSubject("https://intranet") }
        #expect(dotless.message.contains("has no dot"))
    }

    @Test("a subject longer than 512 bytes is refused")
    func overlongRefused() throws {
        let text = "https://example.com/" + String(repeating: "a", count: 493)
        #expect(throws: WebPushConfigurationError.self) { try VAPIDSubject(text) }
        #expect(try VAPIDSubject(String(text.dropLast())).value.utf8.count == 512)
    }
}
