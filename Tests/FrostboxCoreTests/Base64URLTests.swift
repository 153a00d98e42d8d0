import Foundation
import FrostboxCore
import Testing

@Suite("base64url")
struct Base64URLTests {
    @Test("RFC 4648's vectors, without padding, both ways")
    func vectors() {
        let table = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in table {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test("the URL-safe letters for 62 and 63; padding and plain base64's letters read too")
    func alphabet() {
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
        #expect(Base64URL.decode("+/8=") == [0xfb, 0xff])
    }

    @Test("every byte string round-trips, and agrees with Foundation's base64", arguments: [1, 2, 3, 16, 65, 255])
    func roundTrip(count: Int) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let text = Base64URL.encode(bytes)
        #expect(Base64URL.decode(text) == bytes)
        let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(text == foundation)
    }

    @Test("a substring decodes as the string it shows; padding is dropped from its end only")
    func substring() {
        #expect(Base64URL.decode("[Zm9vYg==]".dropFirst().dropLast()) == Array("foob".utf8))
        let text = "[Zm9vYmFy]"
        #expect(Base64URL.decode(text.dropFirst().dropLast()) == Array("foobar".utf8))
        // "Zm9vYm": its last character's leftover bits are not zero, whatever follows it.
        #expect(Base64URL.decode(text.dropFirst().dropLast(3)) == nil)
    }

    @Test("not base64url: nil", arguments: ["a", "ab!c", "Zh", "Zm9=v", "Zm 9v", "Zm9v\u{e9}g", "Zm9v\u{0}"])
    func refused(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
