import Foundation
import FrostboxCore

/// Readers of the small GeoNames tables that name what the geoname rows only code.
public enum GeoNamesTables {
    /// `admin1CodesASCII.txt`: `code \t name \t asciiname \t geonameid` per line, e.g.
    /// `FI.01 \t Uusimaa \t Uusimaa \t 830709`. Malformed lines are skipped.
    public static func admin1(_ file: GeoNamesFile) throws -> [Admin1Division] {
        var divisions: [Admin1Division] = []
        try file.forEachLine { line, _ in
            let text = String(decoding: line, as: UTF8.self)
            let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3, fields[0].contains("."), !fields[1].isEmpty else { return }
            let code = String(fields[0])
            guard code.split(separator: ".", maxSplits: 1).first?.count == 2 else { return }
            divisions.append(
                Admin1Division(
                    code: code, name: String(fields[1]), asciiName: String(fields[2]),
                    geonameID: fields.count > 3 ? Int64(fields[3].trimmingCharacters(in: .whitespacesAndNewlines)) : nil))
        }
        return divisions
    }

    /// `countryInfo.txt`: `#` comment lines, then ISO, ISO3, ISO-numeric, fips, Country,
    /// Capital, Area, Population, Continent, tld, CurrencyCode, CurrencyName, Phone, Postal
    /// Code Format, Postal Code Regex, Languages, geonameid, … tab-separated. Malformed lines
    /// are skipped.
    public static func countries(_ file: GeoNamesFile) throws -> [CountryInfo] {
        var countries: [CountryInfo] = []
        try file.forEachLine { line, _ in
            guard let first = line.first, first != UInt8(ascii: "#") else { return }
            let text = String(decoding: line, as: UTF8.self)
            let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 9, fields[0].count == 2, fields[0].allSatisfy({ $0.isASCII && $0.isUppercase }),
                !fields[4].isEmpty
            else { return }
            countries.append(
                CountryInfo(
                    code: String(fields[0]), name: String(fields[4]), capital: String(fields[5]),
                    population: max(Int64(fields[7]) ?? 0, 0), continent: String(fields[8]),
                    geonameID: fields.count > 16 ? Int64(fields[16].trimmingCharacters(in: .whitespaces)) : nil))
        }
        return countries
    }
}
