import FrostboxCore
import Testing

@Suite("Validation of wire values")
struct ValidationTests {
    @Test(
        "tokens: upper case, <…> and spaced forms normalise to lower-case hex",
        arguments: [
            ("ABCDEF0123456789", "abcdef0123456789"),
            ("<abcdef01 23456789>", "abcdef0123456789"),
            ("<ABCDEF01 23456789 ABCDEF01 23456789>", "abcdef0123456789abcdef0123456789"),
        ])
    func tokenNormalises(raw: String, hex: String) throws {
        #expect(try DeviceToken(raw).value == hex)
    }

    @Test(
        "bad APNs tokens are refused for iOS",
        arguments: [
            "", "abc", "abcdef012345678", "abcdef0123456789a", "ghijklmnopqrstuv", String(repeating: "ab", count: 101), "abcdef01-23456789", "<>",
            "0123456789abcdef\n",
        ])
    func badTokens(raw: String) {
        #expect(throws: ValidationError.self) { try DeviceToken(raw, platform: .ios) }
    }

    @Test(
        "FCM registration tokens: kept exactly as sent, 1–4,096 of A–Z a–z 0–9 _ : -",
        arguments: ["fJ3kX9:APA91bH_q-1", "a", String(repeating: "Ab9_:-", count: 682) + "abcd", "0123456789ABCDEF"])
    func fcmTokens(raw: String) throws {
        let token = try DeviceToken(raw, platform: .android)
        #expect(token.value == raw)
    }

    @Test(
        "bad FCM tokens are refused for Android",
        arguments: ["", "has space", "slash/", "pädd", "a\n", String(repeating: "a", count: 4097), "<abcd>"])
    func badFCMTokens(raw: String) {
        #expect(throws: ValidationError.self) { try DeviceToken(raw, platform: .android) }
    }

    @Test("a token whose platform is not said: an APNs token when it is one (normalised), otherwise an FCM token; garbage is refused")
    func tokenOfEitherPlatform() throws {
        #expect(try DeviceToken("<ABCDEF01 23456789>").value == "abcdef0123456789")
        #expect(try DeviceToken("<ABCDEF01 23456789>").formPlatform == .ios)
        #expect(try DeviceToken("fJ3kX9:APA91bH_q-1").value == "fJ3kX9:APA91bH_q-1")
        #expect(try DeviceToken("fJ3kX9:APA91bH_q-1").formPlatform == .android)
        // Odd-length hex is no APNs token, but is an FCM token's form.
        #expect(try DeviceToken("abc").formPlatform == .android)
        for bad in ["", "a b!", "<>", "x/y", String(repeating: "a", count: 4097)] {
            #expect(throws: ValidationError.self, "\(bad)") { try DeviceToken(bad) }
        }
    }

    @Test("a 200-digit token is the longest accepted")
    func longestToken() throws {
        #expect(try DeviceToken(String(repeating: "ab", count: 100)).value.count == 200)
    }

    @Test("tokens log redacted: first 6 and last 4 digits")
    func redaction() throws {
        let token = try DeviceToken("0123456789abcdef0123456789abcdef")
        #expect(token.redacted == "012345…cdef")
        #expect("\(token)" == "012345…cdef")
        #expect(!"\(token)".contains(token.value))
    }

    @Test(
        "coordinates: out of range and non-finite values are refused",
        arguments: [(91.0, 0.0), (-90.0001, 0.0), (0.0, 180.0001), (0.0, -181.0), (Double.nan, 0.0), (0.0, Double.infinity)])
    func badCoordinates(lat: Double, lon: Double) {
        #expect(throws: ValidationError.self) { try Coordinate(latitude: lat, longitude: lon) }
    }

    @Test("coordinates: -0 is 0, so a value reads back as it was echoed")
    func negativeZero() throws {
        let zero = try Coordinate(latitude: -0.0, longitude: -0.0)
        #expect(zero.latitude.sign == .plus && zero.longitude.sign == .plus)
        #expect(try Coordinate(latitude: -1.5, longitude: -0.25).latitude == -1.5)
    }

    @Test("coordinates: the edges are accepted")
    func edgeCoordinates() throws {
        _ = try Coordinate(latitude: 90, longitude: 180)
        _ = try Coordinate(latitude: -90, longitude: -180)
    }

    @Test("same point to 1e-6°")
    func samePoint() throws {
        let a = try Coordinate(latitude: 60.17, longitude: 24.94)
        #expect(a.isSamePoint(as: try Coordinate(latitude: 60.1700005, longitude: 24.9399995)))
        #expect(!a.isSamePoint(as: try Coordinate(latitude: 60.170002, longitude: 24.94)))
    }

    @Test("distance: Helsinki to Espoo is about 16 km")
    func distance() throws {
        let helsinki = try Coordinate(latitude: 60.16952, longitude: 24.93545)
        let espoo = try Coordinate(latitude: 60.2052, longitude: 24.6522)
        #expect(abs(helsinki.distanceKilometres(to: espoo) - 16.0) < 0.5)
        let east = try Coordinate(latitude: 0, longitude: 179.99)
        let west = try Coordinate(latitude: 0, longitude: -179.99)
        #expect(east.distanceKilometres(to: west) < 2.3)
    }

    @Test("names: trimmed; empty, too long and control characters refused")
    func names() throws {
        #expect(try PlaceName("  Home ").value == "Home")
        #expect(try PlaceName(String(repeating: "ä", count: 200)).value.count == 200)
        for bad in ["", "   ", String(repeating: "a", count: 201), "Ho\u{0}me", "Ho\nme", "Ho\u{7F}me"] {
            #expect(throws: ValidationError.self) { try PlaceName(bad) }
        }
    }

    @Test("units: C/F case-insensitive, missing is C, others refused")
    func units() throws {
        #expect(try TemperatureUnit(parsing: nil) == .celsius)
        #expect(try TemperatureUnit(parsing: "") == .celsius)
        #expect(try TemperatureUnit(parsing: "c") == .celsius)
        #expect(try TemperatureUnit(parsing: "f") == .fahrenheit)
        #expect(throws: ValidationError.self) { try TemperatureUnit(parsing: "K") }
        #expect(TemperatureUnit.fahrenheit.fromCelsius(-40) == -40)
        #expect(TemperatureUnit.fahrenheit.fromCelsius(0) == 32)
    }
}
