import FrostboxCore
import Testing

@Suite("One source of truth: LAT,LON parsing, duration conversions, preset names")
struct SharedConversionsTests {
    @Test(
        "LAT,LON parses plain decimals with spaces around them",
        arguments: [
            ("60.19,25.01", 60.19, 25.01), (" -33.87 , 151.21 ", -33.87, 151.21), ("90,-180", 90.0, -180.0), ("1e1,+2", 10.0, 2.0),
        ])
    func parses(text: String, latitude: Double, longitude: Double) throws {
        let point = try Coordinate(parsing: text)
        #expect(point.latitude == latitude)
        #expect(point.longitude == longitude)
    }

    @Test(
        "anything else is a ValidationError naming the field",
        arguments: [
            "", "60.19", "60.19,25.01,3", "60.19;25.01", "north,25", "0x10,2", "nan,1", "inf,1", "91,0", "0,180.5", ",", "1,",
        ])
    func refuses(text: String) {
        #expect(throws: ValidationError.self, "\(text)") { try Coordinate(parsing: text, field: "--near") }
        do {
            _ = try Coordinate(parsing: text, field: "--near")
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.code == .invalidCoordinate)
        }
    }

    @Test("durations convert to seconds, whole milliseconds and whole nanoseconds")
    func durations() {
        let duration = Duration.seconds(2) + .nanoseconds(345_678_901)
        #expect(abs(duration.inSeconds - 2.345678901) < 1e-12)
        #expect(duration.inMilliseconds == 2_345)
        #expect(duration.inNanoseconds == 2_345_678_901)
        #expect(Duration.milliseconds(-1_500).inMilliseconds == -1_500)
        #expect(Duration.zero.inSeconds == 0)
    }

    @Test("every preset is listed once by name and found under it")
    func presets() {
        #expect(FrostRule.presetNames == ["default", "legacy"])
        #expect(FrostRule.presetNames.allSatisfy { FrostRule.presets[$0]?.name == $0 })
        #expect(FrostRule.presets.count == FrostRule.presetNames.count)
        #expect(FrostRule.presetNameList == "default or legacy")
    }
}
