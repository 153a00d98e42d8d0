import Foundation
import FrostboxCore
import Testing

@testable import FrostboxOpenMeteo

/// `/v1/ensemble` answers in the shapes Open-Meteo writes (issue #47).
@Suite("Open-Meteo ensemble decoding")
struct OpenMeteoEnsembleDecoderTests {
    static let box = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box
    static let time = #"["2026-11-27T22:00","2026-11-27T23:00","2026-11-28T00:00"]"#

    static func body(units: String = #"{"time":"iso8601","temperature_2m":"°C"}"#, _ series: String) -> Data {
        Data(
            """
            {"latitude":60.2,"longitude":25.0,"generationtime_ms":0.1,"utc_offset_seconds":7200,"timezone":"Europe/Helsinki",
             "timezone_abbreviation":"EET","elevation":21.0,"hourly_units":\(units),"hourly":{"time":\(time),\(series)}}
            """.utf8)
    }

    func decode(_ body: Data, models: [String] = ["icon_seamless"], source: OpenMeteoEnsembleDecoder.Source = .members) throws -> EnsembleForecast {
        let all = try OpenMeteoEnsembleDecoder.ensembles(from: body, for: [Self.box], models: models, source: source, maximumGridDistance: 0.5)
        return try #require(all.first)
    }

    @Test("one model: the control and every memberNN, in order, nulls kept")
    func oneModel() throws {
        let ensemble = try decode(
            Self.body(
                #""temperature_2m":[1.0,0.5,0.0],"temperature_2m_member01":[2.0,null,-1.0],"temperature_2m_member02":[3.0,2.0,1.0],"#
                    + #""dew_point_2m":[0,0,0]"#))
        guard case .members(let members) = ensemble.values else {
            Issue.record("not members")
            return
        }
        #expect(members == [[1.0, 0.5, 0.0], [2.0, nil, -1.0], [3.0, 2.0, 1.0]])
        #expect(ensemble.hours.count == 3 && ensemble.hours[2].local.hour == 0 && ensemble.model == "icon_seamless")
    }

    @Test("several models: each model's members by its suffix, pooled in the order asked")
    func severalModels() throws {
        let ensemble = try decode(
            Self.body(
                #""temperature_2m_icon_seamless":[1,1,1],"temperature_2m_member01_icon_seamless":[2,2,2],"#
                    + #""temperature_2m_gfs_seamless":[5,5,5],"temperature_2m_member01_gfs_seamless":[6,6,6],"#
                    + #""temperature_2m_member02_gfs_seamless":[7,7,7]"#),
            models: ["icon_seamless", "gfs_seamless"])
        #expect(ensemble.memberCount == 5)
        guard case .members(let members) = ensemble.values else { return }
        #expect(members.map { $0[0] } == [1, 2, 5, 6, 7])
        #expect(throws: OpenMeteoDecodingError.self) {
            try decode(Self.body(#""temperature_2m_icon_seamless":[1,1,1]"#), models: ["icon_seamless", "gfs_seamless"])
        }
    }

    @Test("an ensemble-mean model: mean and spread; °F converted, the spread by the factor alone")
    func meanAndSpread() throws {
        let ensemble = try decode(
            Self.body(
                units: #"{"time":"iso8601","temperature_2m":"°F","temperature_2m_spread":"°F"}"#,
                #""temperature_2m":[32,41,23],"temperature_2m_spread":[9,0,null]"#),
            models: ["ecmwf_ifs025_ensemble_mean"], source: .spread)
        guard case .spread(let mean, let spread) = ensemble.values else {
            Issue.record("not mean and spread")
            return
        }
        #expect(mean.map { $0.map { ($0 * 1_000).rounded() / 1_000 } } == [0, 5, -5])
        #expect(spread == [5, 0, nil])
    }

    @Test("series of another length, a missing spread, or members of no model are refused whole")
    func refused() {
        #expect(throws: OpenMeteoDecodingError.self) { try decode(Self.body(#""temperature_2m":[1,2],"temperature_2m_member01":[1,2,3]"#)) }
        #expect(throws: OpenMeteoDecodingError.self) { try decode(Self.body(#""temperature_2m":[1,2,3]"#), source: .spread) }
        #expect(throws: OpenMeteoDecodingError.self) { try decode(Self.body(#""dew_point_2m":[1,2,3]"#)) }
        #expect(OpenMeteoEnsembleDecoder.isMember("temperature_2m_member17", model: nil))
        #expect(!OpenMeteoEnsembleDecoder.isMember("temperature_2m_spread", model: nil))
        #expect(OpenMeteoEnsembleDecoder.isMember("temperature_2m_icon_seamless_member03", model: "icon_seamless"))
        #expect(!OpenMeteoEnsembleDecoder.isMember("temperature_2m_member03_gfs_seamless", model: "icon_seamless"))
    }
}
