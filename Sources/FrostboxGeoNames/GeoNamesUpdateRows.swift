import FrostboxCore

/// Parses lines of GeoNames' alternate names table and of the daily delete files. Dirty
/// lines are skipped and counted like the dump's (`GeoNamesSkipReason`).
public enum GeoNamesUpdateRows {
    /// One line of `alternateNamesV2.txt` or `alternateNamesModifications-DATE.txt`:
    /// alternateNameId, geonameid, isolanguage, alternate name, isPreferredName, isShortName,
    /// isColloquial, isHistoric, from, to (the older 8-column form has no from and to).
    /// Flags are `1` or empty.
    public static func alternateName(_ line: UnsafeBufferPointer<UInt8>) throws(GeoNamesSkipReason) -> AlternateName {
        let fields = try split(line)
        guard fields.count == 8 || fields.count == 10 else { throw .wrongColumnCount }
        guard let id = positive(fields[0]), let placeID = positive(fields[1]) else { throw .invalidID }
        let name = fields[3].trimmingCharacters(in: " ")
        guard !name.isEmpty else { throw .emptyName }
        return AlternateName(
            id: id, placeID: placeID, language: String(fields[2]), name: name, isPreferred: fields[4] == "1",
            isShort: fields[5] == "1", isColloquial: fields[6] == "1", isHistoric: fields[7] == "1",
            from: fields.count == 10 ? String(fields[8]) : "", to: fields.count == 10 ? String(fields[9]) : "")
    }

    /// The id in the first column of a delete line: the geonameid of `deletes-DATE.txt`
    /// (geonameid, name, comment) or the alternateNameId of `alternateNamesDeletes-DATE.txt`
    /// (alternateNameId, geonameid, name, comment).
    public static func deletedID(_ line: UnsafeBufferPointer<UInt8>) throws(GeoNamesSkipReason) -> Int64 {
        let fields = try split(line)
        guard fields.count >= 2 else { throw .wrongColumnCount }
        guard let id = positive(fields[0]) else { throw .invalidID }
        return id
    }

    static func split(_ line: UnsafeBufferPointer<UInt8>) throws(GeoNamesSkipReason) -> [Substring] {
        var end = line.count
        if end > 0 && line[end - 1] == 0x0D { end -= 1 }
        if end == 0 { throw .emptyLine }
        let bytes = UnsafeBufferPointer(rebasing: line[0..<end])
        guard GeoNamesRow.isValidUTF8(bytes) else { throw .invalidEncoding }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false)
    }

    static func positive(_ field: Substring) -> Int64? {
        guard let value = Int64(field), value > 0 else { return nil }
        return value
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}
