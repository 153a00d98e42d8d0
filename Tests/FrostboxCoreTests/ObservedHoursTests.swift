import FrostboxCore
import Testing

/// The lowest observed temperature of a night's window (issue #48): only a whole window counts.
@Suite("Observed hours: the minimum of a window")
struct ObservedHoursTests {
    static let box = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box
    static let start: Int64 = 1_795_824_000

    static func hours(_ values: [Double?], from first: Int64 = start) -> ObservedHours {
        ObservedHours(box: box, times: values.indices.map { first + Int64($0) * 3_600 }, temperaturesC: values)
    }

    @Test("the lowest of the window's hours; hours outside the window do not count")
    func lowest() {
        let observed = Self.hours([-9, 1.5, -2.5, 0, -0.5, -20])
        #expect(observed.minimum(from: Self.start + 3_600, to: Self.start + 5 * 3_600) == -2.5)
        #expect(observed.minimum(from: Self.start, to: Self.start + 6 * 3_600) == -20)
        #expect(observed.minimum(from: Self.start + 3 * 3_600, to: Self.start + 4 * 3_600) == 0)
    }

    @Test("nil when an hour of the window has no value (not analysed yet) or is not finite")
    func missingValue() {
        #expect(Self.hours([1, nil, -3]).minimum(from: Self.start, to: Self.start + 3 * 3_600) == nil)
        #expect(Self.hours([1, .nan, -3]).minimum(from: Self.start, to: Self.start + 3 * 3_600) == nil)
        // The same hours without the missing one in the window.
        #expect(Self.hours([1, nil, -3]).minimum(from: Self.start + 2 * 3_600, to: Self.start + 3 * 3_600) == -3)
    }

    @Test("nil when an hour of the window is not in the series at all (a gap, or the window past its end)")
    func missingHour() {
        let gap = ObservedHours(box: Self.box, times: [Self.start, Self.start + 7_200], temperaturesC: [1, -3])
        #expect(gap.minimum(from: Self.start, to: Self.start + 3 * 3_600) == nil)
        #expect(Self.hours([1, 2]).minimum(from: Self.start, to: Self.start + 3 * 3_600) == nil)
        #expect(Self.hours([1, 2]).minimum(from: Self.start - 3_600, to: Self.start + 2 * 3_600) == nil)
        #expect(Self.hours([]).minimum(from: Self.start, to: Self.start + 3_600) == nil)
    }
}
