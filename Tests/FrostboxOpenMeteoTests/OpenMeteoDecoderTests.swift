import Foundation
import FrostboxCore
import Testing

@testable import FrostboxOpenMeteo

@Suite("Open-Meteo answer decoding")
struct OpenMeteoDecoderTests {
    static let box = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box

    static func payload(
        time: String, units: String = #"{"time":"iso8601","temperature_2m":"°C","dew_point_2m":"°C","cloud_cover":"%","wind_speed_10m":"km/h"}"#,
        offset: Int = 7_200, extra: String = ""
    ) -> String {
        """
        {"latitude":60.2,"longitude":25.0,"generationtime_ms":0.1,"utc_offset_seconds":\(offset),"timezone":"Europe/Helsinki",
         "timezone_abbreviation":"EET","elevation":21.0\(extra),"hourly_units":\(units),
         "hourly":{"time":\(time),"temperature_2m":[1.5,null,-2.0],"dew_point_2m":[0.1,0.2,0.3],"cloud_cover":[10,20,30],"wind_speed_10m":[3.6,7.2,null]}}
        """
    }

    @Test("local ISO times (one fixed offset for the series, as Open-Meteo writes them) become UTC, then the zone's true wall clock")
    func isoAcrossDST() throws {
        // Open-Meteo writes 02:00, 03:00, 04:00 at +2 across the change; the last is really 05:00 +3.
        let body = Data(Self.payload(time: #"["2025-03-30T02:00","2025-03-30T03:00","2025-03-30T04:00"]"#).utf8)
        let forecasts = try OpenMeteoDecoder.forecasts(from: body, for: [Self.box], fetchedAt: 5, maximumGridDistance: 1)
        let hours = forecasts[0].hours
        #expect(hours.map(\.time) == [1_743_292_800, 1_743_296_400, 1_743_300_000])
        #expect(hours.map(\.local.description) == ["2025-03-30T02:00", "2025-03-30T04:00", "2025-03-30T05:00"])
        #expect(hours.map(\.temperatureC) == [1.5, nil, -2.0])
        #expect(hours.map(\.windSpeedKmh) == [3.6, 7.2, nil])
        #expect(forecasts[0].elevation == 21)
        #expect(forecasts[0].fetchedAt == 5)
    }

    @Test("°F and mp/h answers are converted to °C and km/h")
    func units() throws {
        let body = Data(
            Self.payload(
                time: "[1743292800,1743296400,1743300000]",
                units: #"{"time":"unixtime","temperature_2m":"°F","dew_point_2m":"°F","cloud_cover":"%","wind_speed_10m":"mp/h"}"#
            ).utf8)
        let hours = try OpenMeteoDecoder.forecasts(from: body, for: [Self.box], fetchedAt: 0, maximumGridDistance: 1)[0].hours
        #expect(abs(hours[0].temperatureC! - (1.5 - 32) * 5 / 9) < 1e-9)
        #expect(abs(hours[0].windSpeedKmh! - 3.6 * 1.609344) < 1e-9)
    }

    @Test(
        "malformed answers fail the whole batch",
        arguments: [
            ("", "empty body"),
            ("{\"latitude\":60.2", "does not decode"),
            ("{\"error\":true,\"reason\":\"boom\"}", "error body in a 200 answer: boom"),
            ("[]", "asked for 1 locations, the answer has 0"),
        ])
    func malformed(body: String, expected: String) {
        #expect(throws: OpenMeteoDecodingError.self) {
            try OpenMeteoDecoder.forecasts(from: Data(body.utf8), for: [Self.box], fetchedAt: 0, maximumGridDistance: 1)
        }
        do {
            _ = try OpenMeteoDecoder.forecasts(from: Data(body.utf8), for: [Self.box], fetchedAt: 0, maximumGridDistance: 1)
        } catch {
            #expect(error.description.contains(expected))
        }
    }

    @Test("series of different lengths and unknown units are refused")
    func inconsistentSeries() {
        let short = Self.payload(time: "[1743292800,1743296400]", units: #"{"time":"unixtime"}"#)
        #expect(throws: OpenMeteoDecodingError.self) {
            try OpenMeteoDecoder.forecasts(from: Data(short.utf8), for: [Self.box], fetchedAt: 0, maximumGridDistance: 1)
        }
        let kelvin = Self.payload(time: "[1743292800,1743296400,1743300000]", units: #"{"time":"unixtime","temperature_2m":"K"}"#)
        #expect(throws: OpenMeteoDecodingError.self) {
            try OpenMeteoDecoder.forecasts(from: Data(kelvin.utf8), for: [Self.box], fetchedAt: 0, maximumGridDistance: 1)
        }
    }

    @Test("several models: each hour comes whole from the first model in the order asked that has its temperature")
    func severalModels() throws {
        let body = Data(
            """
            {"latitude":60.2,"longitude":25.0,"utc_offset_seconds":7200,"timezone":"Europe/Helsinki",
             "hourly_units":{"time":"unixtime","temperature_2m_icon_d2":"°C","dew_point_2m_icon_d2":"°C","cloud_cover_icon_d2":"%",
              "wind_speed_10m_icon_d2":"m/s","temperature_2m_icon_eu":"°C","dew_point_2m_icon_eu":"°C","cloud_cover_icon_eu":"%",
              "wind_speed_10m_icon_eu":"m/s"},
             "hourly":{"time":[1743292800,1743296400,1743300000],
              "temperature_2m_icon_d2":[-1.0,null,null],"dew_point_2m_icon_d2":[-3.0,null,null],"cloud_cover_icon_d2":[5,null,null],
              "wind_speed_10m_icon_d2":[1.0,null,null],
              "temperature_2m_icon_eu":[-0.5,-0.7,null],"dew_point_2m_icon_eu":[-2.0,-2.5,null],"cloud_cover_icon_eu":[50,60,null],
              "wind_speed_10m_icon_eu":[2.0,3.0,null]}}
            """.utf8)
        let hours = try OpenMeteoDecoder.forecasts(from: body, for: [Self.box], fetchedAt: 0, maximumGridDistance: 1, models: ["icon_d2", "icon_eu"])[0]
            .hours
        #expect(hours.map(\.temperatureC) == [-1.0, -0.7, nil])
        #expect(hours.map(\.dewPointC) == [-3.0, -2.5, nil])
        #expect(hours.map(\.cloudCoverPercent) == [5, 60, nil])
        #expect(hours.map { $0.windSpeedKmh.map { ($0 * 10).rounded() / 10 } } == [3.6, 10.8, nil])
        // Asked in the other order, the first two hours come from icon_eu.
        let reversed = try OpenMeteoDecoder.forecasts(
            from: body, for: [Self.box], fetchedAt: 0, maximumGridDistance: 1, models: ["icon_eu", "icon_d2"])[0].hours
        #expect(reversed.map(\.temperatureC) == [-0.5, -0.7, nil])
        // A model asked for but missing from the answer fails it.
        #expect(throws: OpenMeteoDecodingError.self) {
            try OpenMeteoDecoder.forecasts(from: body, for: [Self.box], fetchedAt: 0, maximumGridDistance: 1, models: ["icon_d2", "gfs_global"])
        }
    }

    @Test("location_id orders an array answer; an absent one means 0")
    func locationIDs() throws {
        let other = Coordinate(uncheckedLatitude: 60.5, longitude: 25.5).box
        let first = Self.payload(time: "[1743292800,1743296400,1743300000]", units: #"{"time":"unixtime"}"#)
        let second = first.replacingOccurrences(of: #""latitude":60.2,"longitude":25.0"#, with: #""latitude":60.5,"longitude":25.5"#)
            .replacingOccurrences(of: #""elevation":21.0"#, with: #""elevation":21.0,"location_id":1"#)
        let body = Data("[\(second),\(first)]".utf8)
        let forecasts = try OpenMeteoDecoder.forecasts(from: body, for: [Self.box, other], fetchedAt: 0, maximumGridDistance: 1)
        #expect(forecasts.map(\.box) == [Self.box, other])
        #expect(forecasts.map(\.gridLatitude) == [60.2, 60.5])
    }

    @Test(
        "429 reasons are read for their window",
        arguments: [
            ("Minutely API request limit exceeded. Please try again in one minute.", RateLimitReason.minute),
            ("Hourly API request limit exceeded. Please try again in the next hour.", .hour),
            ("Daily API request limit exceeded. Please try again tomorrow.", .day),
            ("Too many concurrent requests", .other),
        ])
    func rateLimitReasons(reason: String, window: RateLimitReason) {
        #expect(RateLimitReason(reason: reason) == window)
    }

    @Test("retry-after per window: a minute, the next full hour, the next UTC midnight")
    func retryAfter() {
        let now: Int64 = 1_774_001_234
        #expect(RateLimitReason.minute.retryAfter(now: now) == now + 60)
        #expect(RateLimitReason.hour.retryAfter(now: now) == 1_774_004_400)
        #expect(RateLimitReason.day.retryAfter(now: now) == 1_774_051_200)
        #expect(RateLimitReason.other.retryAfter(now: now) == nil)
    }
}
