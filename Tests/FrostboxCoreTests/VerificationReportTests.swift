import FrostboxCore
import Testing

/// Issue #48's groups placed on a map: each region and country at the mean centre of its
/// checked boxes.
@Suite("Verification report: group positions")
struct VerificationReportTests {
    static let night = LocalDate(year: 2026, month: 11, day: 20)

    static func night(_ region: VerificationRegion, _ box: GeoBox?, lead: AlertLead? = nil) -> VerifiedNight {
        VerifiedNight(night: night, region: region, alertedLevel: .none, lead: lead, observedMinimumC: 1, box: box)
    }

    static func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) < 1e-9 } ?? false }

    @Test("a region's position is the mean of its distinct boxes; its country's spans its regions; leads and months have none")
    func means() throws {
        let uusimaa = VerificationRegion(countryCode: "FI", admin1Code: "18")
        let lapland = VerificationRegion(countryCode: "FI", admin1Code: "19")
        let a = GeoBox(latitudeIndex: 1_200, longitudeIndex: 500)  // 60° N 25° E
        let b = GeoBox(latitudeIndex: 1_204, longitudeIndex: 504)  // 60.2° N 25.2° E
        let c = GeoBox(latitudeIndex: 1_340, longitudeIndex: 520)  // 67° N 26° E
        // Box a twice (two nights): it still counts once.
        let nights = [
            Self.night(uusimaa, a, lead: .sameNight), Self.night(uusimaa, a), Self.night(uusimaa, b), Self.night(lapland, c),
            Self.night(VerificationRegion(countryCode: "SE", admin1Code: "01"), nil),
        ]
        let report = VerificationReport(nights, thresholds: FrostThresholds())
        let regions = Dictionary(uniqueKeysWithValues: report.regions.map { ($0.key, $0) })
        #expect(Self.close(regions["FI.18"]?.latitude, 60.1) && Self.close(regions["FI.18"]?.longitude, 25.1))
        #expect(Self.close(regions["FI.19"]?.latitude, 67) && Self.close(regions["FI.19"]?.longitude, 26))
        // No night of SE.01 carries its box: no position rather than a made-up one.
        #expect(regions["SE.01"] != nil && regions["SE.01"]?.latitude == nil && regions["SE.01"]?.longitude == nil)
        let finland = try #require(report.countries.first { $0.key == "FI" })
        #expect(Self.close(finland.latitude, (60 + 60.2 + 67) / 3))
        #expect(report.leads.allSatisfy { $0.latitude == nil && $0.longitude == nil } && !report.leads.isEmpty)
        #expect(report.months.allSatisfy { $0.latitude == nil && $0.longitude == nil } && !report.months.isEmpty)
    }

    @Test("a region across the antimeridian is placed on it, not on the far side of the globe")
    func antimeridian() throws {
        let fiji = VerificationRegion(countryCode: "FJ", admin1Code: "N")
        // 179.9° E and 179.9° W: the plain mean would be 0°.
        let nights = [
            Self.night(fiji, GeoBox(latitudeIndex: -330, longitudeIndex: 3_598)),
            Self.night(fiji, GeoBox(latitudeIndex: -330, longitudeIndex: -3_598)),
        ]
        let region = try #require(VerificationReport(nights, thresholds: FrostThresholds()).regions.first)
        let longitude = try #require(region.longitude)
        #expect(abs(abs(longitude) - 180) < 1e-6 && longitude > -180 && Self.close(region.latitude, -16.5))
    }
}
