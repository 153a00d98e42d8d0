import FrostboxCore

/// Why a line of a GeoNames dump was skipped. Dirty lines never stop an import: they are
/// counted by reason.
public enum GeoNamesSkipReason: String, Sendable, CaseIterable, Comparable, Error {
    /// Not the 19 tab-separated columns of the geoname table.
    case wrongColumnCount = "wrong_column_count"
    /// The bytes are not valid UTF-8.
    case invalidEncoding = "invalid_utf8"
    /// The geonameid is missing, not a number or not positive.
    case invalidID = "invalid_id"
    /// The name is empty.
    case emptyName = "empty_name"
    /// Latitude missing, not a number or outside [−90, 90].
    case invalidLatitude = "invalid_latitude"
    /// Longitude missing, not a number or outside [−180, 180].
    case invalidLongitude = "invalid_longitude"
    /// Population not a non-negative 64-bit integer.
    case invalidPopulation = "invalid_population"
    /// Elevation or DEM present but not an integer.
    case invalidNumber = "invalid_number"
    /// An empty line.
    case emptyLine = "empty_line"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Parses lines of the GeoNames "geoname" table: 19 tab-separated UTF-8 columns, no header,
/// no quoting (a `"` is part of a name), empty fields allowed, population 64-bit.
public enum GeoNamesRow {
    /// Number of columns of the geoname table.
    public static let columnCount = 19

    /// Parses one line (without its line break; a trailing `\r` is ignored).
    public static func parse(_ line: UnsafeBufferPointer<UInt8>) throws(GeoNamesSkipReason) -> Place {
        var end = line.count
        if end > 0 && line[end - 1] == 0x0D { end -= 1 }
        if end == 0 { throw .emptyLine }
        // Column i spans bounds[i] ..< bounds[i + 1] - 1 (the tab after it).
        var bounds = InlineArray<20, Int>(repeating: 0)
        var column = 0
        for index in 0..<end where line[index] == 0x09 {
            column += 1
            guard column < columnCount else { throw .wrongColumnCount }
            bounds[column] = index + 1
        }
        guard column == columnCount - 1 else { throw .wrongColumnCount }
        bounds[columnCount] = end + 1
        func field(_ i: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: line[bounds[i]..<(bounds[i + 1] - 1)])
        }
        guard isValidUTF8(UnsafeBufferPointer(rebasing: line[0..<end])) else { throw .invalidEncoding }

        guard let id = parseInteger(field(0)), id > 0 else { throw .invalidID }
        let name = trimmedString(field(1))
        guard !name.isEmpty else { throw .emptyName }
        guard let latitude = parseDecimal(field(4)), (-90...90).contains(latitude) else { throw .invalidLatitude }
        guard let longitude = parseDecimal(field(5)), (-180...180).contains(longitude) else { throw .invalidLongitude }
        let populationField = field(14)
        var population: Int64 = 0
        if populationField.count > 0 {
            guard let value = parseInteger(populationField), value >= 0 else { throw .invalidPopulation }
            population = value
        }
        for numeric in [15, 16] where field(numeric).count > 0 {
            guard parseInteger(field(numeric)) != nil else { throw .invalidNumber }
        }
        return Place(
            id: id, name: name, asciiName: trimmedString(field(2)), alternateNames: string(field(3)),
            coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
            featureClass: string(field(6)), featureCode: string(field(7)), countryCode: string(field(8)),
            admin1Code: string(field(10)), population: population, timezone: string(field(17)),
            modified: string(field(18)))
    }

    /// Parses one line given as a string (tests and small inputs).
    public static func parse(_ line: String) throws(GeoNamesSkipReason) -> Place {
        var copy = Array(line.utf8)
        return try copy.withUnsafeMutableBufferPointer { buffer throws(GeoNamesSkipReason) in
            try parse(UnsafeBufferPointer(buffer))
        }
    }

    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    static func trimmedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var start = 0
        var end = bytes.count
        while start < end && (bytes[start] == 0x20) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20) { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// A decimal integer with optional sign; nil on anything else or on 64-bit overflow.
    public static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if index < bytes.count && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (plus, overflow2) = times.addingReportingOverflow(Int64(digit))
            guard !overflow1 && !overflow2 else { return nil }
            value = plus
            index += 1
        }
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// A plain decimal (`-12.345`): digits with an optional sign and fraction; nil otherwise,
    /// and for non-finite values. Up to 15 significant digits are converted exactly (one
    /// rounding, as `strtod`); longer forms fall back to the standard library.
    public static func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        var negative = false
        if index < bytes.count && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: Int64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        var anyDigit = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                anyDigit = true
                if mantissa > 0 || digit > 0 { digits += 1 }
                if digits > 15 { return slowDecimal(bytes) }
                mantissa = mantissa * 10 + Int64(digit)
                if seenPoint { fractionDigits += 1 }
            }
            index += 1
        }
        guard anyDigit, fractionDigits <= 22 else { return anyDigit ? slowDecimal(bytes) : nil }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    private static func slowDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// Strict UTF-8 validation (no overlongs, no surrogates, nothing past U+10FFFF).
    public static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var minimum: UInt32
            var value: UInt32
            switch lead {
            case 0xC2...0xDF:
                length = 2
                minimum = 0x80
                value = UInt32(lead & 0x1F)
            case 0xE0...0xEF:
                length = 3
                minimum = 0x800
                value = UInt32(lead & 0x0F)
            case 0xF0...0xF4:
                length = 4
                minimum = 0x10000
                value = UInt32(lead & 0x07)
            default: return false
            }
            guard index + length <= count else { return false }
            for offset in 1..<length {
                let byte = bytes[index + offset]
                guard byte & 0xC0 == 0x80 else { return false }
                value = value << 6 | UInt32(byte & 0x3F)
            }
            guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { return false }
            minimum = 0
            index += length
        }
        return true
    }
}
