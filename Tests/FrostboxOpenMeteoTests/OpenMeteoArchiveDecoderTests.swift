import Foundation
import FrostboxCore
import Testing

@testable import FrostboxOpenMeteo

/// `/v1/archive` answers in the shapes Open-Meteo writes (issue #48).
@Suite("Open-Meteo archive decoding")
struct OpenMeteoArchiveDecoderTests {
    static let helsinki = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box
    static let stockholm = Coordinate(uncheckedLatitude: 59.33, longitude: 18.07).box
    /// 2026-11-28 00:00 … 02:00 UTC.
    static let times: [Int64] = [1_795_824_000, 1_795_827_600, 1_795_831_200]

    static func location(
        latitude: Double = 60.2, longitude: Double = 25.0, id: Int? = nil, units: String = #"{"time":"unixtime","temperature_2m":"°C"}"#,
        _ series: String
    ) -> String {
        """
        {"latitude":\(latitude),"longitude":\(longitude),"generationtime_ms":0.1,"utc_offset_seconds":0,"timezone":"GMT",
         "timezone_abbreviation":"GMT","elevation":21.0,\(id.map { "\"location_id\":\($0)," } ?? "")"hourly_units":\(units),
         "hourly":{"time":[\(times.map(String.init).joined(separator: ","))],\(series)}}
        """
    }

    func decode(_ body: String, for boxes: [GeoBox] = [Self.helsinki], models: [String] = ["ecmwf_ifs"]) throws -> [ObservedHours] {
        try OpenMeteoArchiveDecoder.observations(from: Data(body.utf8), for: boxes, models: models, maximumGridDistance: 0.5)
    }

    @Test("one location (the single-object shape): unix hours, values in °C, nulls (not analysed yet) kept as nil")
    func singleLocation() throws {
        let observed = try decode(Self.location(#""temperature_2m":[-1.5,-2.0,null]"#))
        #expect(observed == [ObservedHours(box: Self.helsinki, times: Self.times, temperaturesC: [-1.5, -2.0, nil])])
    }

    @Test("ISO times in GMT are the same hours")
    func isoTimes() throws {
        let body = #"""
            {"latitude":60.2,"longitude":25.0,"utc_offset_seconds":0,"timezone":"GMT","hourly_units":{"time":"iso8601","temperature_2m":"°C"},
             "hourly":{"time":["2026-11-28T00:00","2026-11-28T01:00","2026-11-28T02:00"],"temperature_2m":[1,2,3]}}
            """#
        #expect(try decode(body).first?.times == Self.times)
    }

    @Test("several locations (an array with location_id, here reversed): one per box, in request order")
    func arrayInRequestOrder() throws {
        let body =
            "["
            + Self.location(latitude: 59.3, longitude: 18.1, id: 1, #""temperature_2m":[5,5,5]"#) + ","
            + Self.location(id: 0, #""temperature_2m":[1,1,1]"#) + "]"
        let observed = try decode(body, for: [Self.helsinki, Self.stockholm])
        #expect(observed.map(\.box) == [Self.helsinki, Self.stockholm])
        #expect(observed.map { $0.temperaturesC[0] } == [1, 5])
    }

    @Test("°F answers are converted to °C")
    func fahrenheit() throws {
        let observed = try decode(
            Self.location(units: #"{"time":"unixtime","temperature_2m":"°F"}"#, #""temperature_2m":[32,23,null]"#))
        #expect(observed.first?.temperaturesC == [0, -5, nil])
    }

    @Test("two models: each hour from the first model that has it, else the next, else nil")
    func twoModelsFallBack() throws {
        let observed = try decode(
            Self.location(
                units: #"{"time":"unixtime","temperature_2m_ecmwf_ifs":"°C","temperature_2m_era5":"°C"}"#,
                #""temperature_2m_ecmwf_ifs":[1,null,null],"temperature_2m_era5":[5,6,null]"#),
            models: ["ecmwf_ifs", "era5"])
        #expect(observed.first?.temperaturesC == [1, 6, nil])
        // One model's column missing fails the answer.
        #expect(throws: OpenMeteoDecodingError.self) {
            try decode(Self.location(#""temperature_2m_ecmwf_ifs":[1,2,3]"#), models: ["ecmwf_ifs", "era5"])
        }
    }

    @Test("the whole batch fails: another number of locations, a series of another length, no temperature_2m, another place")
    func failures() throws {
        #expect(throws: OpenMeteoDecodingError.self) {
            try decode(Self.location(#""temperature_2m":[1,2,3]"#), for: [Self.helsinki, Self.stockholm])
        }
        #expect(throws: OpenMeteoDecodingError.self) { try decode(Self.location(#""temperature_2m":[1,2]"#)) }
        #expect(throws: OpenMeteoDecodingError.self) { try decode(Self.location(#""dew_point_2m":[1,2,3]"#)) }
        #expect(throws: OpenMeteoDecodingError.self) { try decode(Self.location(latitude: 40, #""temperature_2m":[1,2,3]"#)) }
        #expect(throws: OpenMeteoDecodingError.self) { try decode(#"{"error":true,"reason":"Invalid date"}"#) }
    }
}
