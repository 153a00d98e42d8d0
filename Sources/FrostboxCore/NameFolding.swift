/// Folds place names and queries into one comparable form, so that what a user types on any
/// keyboard finds the name as GeoNames spells it:
///
/// 1. Unicode NFKD, combining marks removed, full case folding (`Zürich` → `zurich`,
///    `São Paulo` → `sao paulo`, `Ｔｏｋｙｏ` → `tokyo`, Hangul syllables into jamo);
/// 2. letters without a decomposition: ß→ss, æ→ae, ø→o, œ→oe, ł→l, đ→d, ð→d, þ→th, ı→i;
/// 3. `.` `,` `'` `’` removed; `-` and the Unicode hyphens become a space;
/// 4. white space collapsed to single spaces and trimmed.
///
/// A query keeps one trailing space where it ended in a hyphen (`carmel-` → `carmel `): the
/// typist ended a word, so only names going on after it (`Carmel-by-the-Sea`) match.
///
/// Non-Latin scripts stay themselves apart from case and marks (`Москва` → `москва`).
/// The per-scalar table is generated from the Unicode data by `tools/fold-table/generate.py`.
public enum NameFolding {
    /// The folded form of `text`; with `keepingTrailingSeparator`, a trailing hyphen (or a
    /// space after one) leaves a single trailing space, which ends the last word.
    public static func fold(_ text: some StringProtocol, keepingTrailingSeparator: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        fold(text, into: &output, keepingTrailingSeparator: keepingTrailingSeparator, stoppingPast: .max)
        return String(decoding: output, as: UTF8.self)
    }

    /// How a name's folded form compares with a folded query: whether it starts with it, and
    /// whether it equals it. Folds only as far as the comparison needs (a few bytes past the
    /// query's length), so a search can judge every place it reads.
    public static func compare(_ name: some StringProtocol, foldedQuery: String) -> (isPrefix: Bool, isEqual: Bool) {
        let query = foldedQuery.utf8
        var output: [UInt8] = []
        output.reserveCapacity(query.count + 4)
        fold(name, into: &output, keepingTrailingSeparator: false, stoppingPast: query.count)
        // `output` is a prefix of the whole folded name (spaces are written only before what
        // follows them), and the whole of it when it ended within the query's length.
        guard output.starts(with: query) else { return (false, false) }
        return (true, output.count == query.count)
    }

    /// `compare` on a name's UTF-8 bytes (a database row's, read in place): a name all in
    /// ASCII, as most are, is folded and compared byte by byte without building a string.
    public static func compare(utf8 name: UnsafeRawBufferPointer, foldedQuery: String) -> (isPrefix: Bool, isEqual: Bool) {
        if name.allSatisfy({ $0 < 0x80 }),
            let result = foldedQuery.utf8.withContiguousStorageIfAvailable({ query in compareASCII(name, query) })
        {
            return result
        }
        return compare(String(decoding: name, as: UTF8.self), foldedQuery: foldedQuery)
    }

    /// `compare` for a name in ASCII, by the rules of `appendASCII`.
    static func compareASCII(_ name: UnsafeRawBufferPointer, _ query: UnsafeBufferPointer<UInt8>) -> (isPrefix: Bool, isEqual: Bool) {
        var written = 0
        var pendingSpace = false
        for byte in name {
            let folded: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): folded = byte + 32
            case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: "'"), 0x00...0x08, 0x0E...0x1F, 0x7F: continue
            case UInt8(ascii: "-"), UInt8(ascii: " "), 0x09...0x0D:
                pendingSpace = written > 0
                continue
            default: folded = byte
            }
            if pendingSpace {
                // The whole query matched and the name goes on: a prefix, not equal.
                guard written < query.count else { return (true, false) }
                guard query[written] == UInt8(ascii: " ") else { return (false, false) }
                written += 1
                pendingSpace = false
            }
            guard written < query.count else { return (true, false) }
            guard query[written] == folded else { return (false, false) }
            written += 1
        }
        return (written == query.count, written == query.count)
    }

    /// The folded form with each hyphen kept as `-` (spaces before it dropped): tells
    /// `Carmel-by-the-Sea` (`carmel-by-the-sea`) from `Carmel Valley` where `fold` cannot.
    public static func foldKeepingHyphens(_ text: some StringProtocol) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        fold(text, into: &output, keepingTrailingSeparator: false, keepingHyphens: true, stoppingPast: .max)
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether `name`, folded keeping its hyphens, starts with `hyphenatedQuery` (a query
    /// folded by `foldKeepingHyphens`).
    public static func hasHyphenatedPrefix(_ name: some StringProtocol, _ hyphenatedQuery: String) -> Bool {
        var output: [UInt8] = []
        output.reserveCapacity(hyphenatedQuery.utf8.count + 4)
        fold(name, into: &output, keepingTrailingSeparator: false, keepingHyphens: true, stoppingPast: hyphenatedQuery.utf8.count)
        return output.starts(with: hyphenatedQuery.utf8)
    }

    /// Folds `text` into `output`, stopping once `output` holds more than `limit` bytes.
    static func fold(
        _ text: some StringProtocol, into output: inout [UInt8], keepingTrailingSeparator: Bool, keepingHyphens: Bool = false,
        stoppingPast limit: Int
    ) {
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if output.count > limit { return }
            let value = scalar.value
            if keepingHyphens && (value == 0x2D || (0x2010...0x2014).contains(value)) {
                pendingSpace = false
                if !output.isEmpty { output.append(UInt8(ascii: "-")) }
                continue
            }
            if value < 0x80 {
                appendASCII(UInt8(truncatingIfNeeded: value), to: &output, pendingSpace: &pendingSpace)
                continue
            }
            if (0xAC00...0xD7A3).contains(value) {
                for jamo in decomposeHangul(value) {
                    appendScalar(jamo, to: &output, pendingSpace: &pendingSpace)
                }
                continue
            }
            if let range = Table.shared.range(of: value) {
                for index in range {
                    let folded = Table.shared.scalars[index]
                    if folded < 0x80 {
                        appendASCII(UInt8(truncatingIfNeeded: folded), to: &output, pendingSpace: &pendingSpace)
                    } else {
                        appendScalar(folded, to: &output, pendingSpace: &pendingSpace)
                    }
                }
                continue
            }
            appendScalar(value, to: &output, pendingSpace: &pendingSpace)
        }
        if keepingTrailingSeparator { flushSpace(&output, &pendingSpace) }
    }

    @inline(__always)
    static func appendASCII(_ byte: UInt8, to output: inout [UInt8], pendingSpace: inout Bool) {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            flushSpace(&output, &pendingSpace)
            output.append(byte + 32)
        case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: "'"):
            return
        case UInt8(ascii: "-"), UInt8(ascii: " "), 0x09...0x0D:
            pendingSpace = !output.isEmpty
        case 0x00...0x08, 0x0E...0x1F, 0x7F:
            return
        default:
            flushSpace(&output, &pendingSpace)
            output.append(byte)
        }
    }

    @inline(__always)
    static func appendScalar(_ value: UInt32, to output: inout [UInt8], pendingSpace: inout Bool) {
        switch value {
        case 0x2019, 0x2018, 0x02BC:
            // Typographic apostrophes go the way of `'`.
            return
        case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2212, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029,
            0x202F, 0x205F, 0x3000:
            pendingSpace = !output.isEmpty
            return
        case 0x200B...0x200D, 0xFEFF, 0x80...0x9F:
            return
        default:
            break
        }
        guard let scalar = Unicode.Scalar(value) else { return }
        flushSpace(&output, &pendingSpace)
        output.append(contentsOf: UTF8.encode(scalar)!)
    }

    @inline(__always)
    static func flushSpace(_ output: inout [UInt8], _ pendingSpace: inout Bool) {
        if pendingSpace {
            output.append(UInt8(ascii: " "))
            pendingSpace = false
        }
    }

    /// Hangul syllables decompose algorithmically (Unicode §3.12) into leading, vowel and
    /// optional trailing jamo.
    static func decomposeHangul(_ value: UInt32) -> [UInt32] {
        let index = value - 0xAC00
        let leading = 0x1100 + index / 588
        let vowel = 0x1161 + (index % 588) / 28
        let trailing = index % 28
        return trailing == 0 ? [leading, vowel] : [leading, vowel, 0x11A7 + trailing]
    }

    /// The decoded per-scalar table. The Basic Multilingual Plane is indexed directly (the
    /// import folds ~100M names, so no hashing on the hot path); the rest goes through a
    /// dictionary.
    struct Table: Sendable {
        /// For each BMP scalar: start in `scalars` << 8 | count, or 0 when it folds to itself.
        let plane0: [UInt32]
        let others: [UInt32: Range<Int>]
        let scalars: [UInt32]

        static let shared = Table(encoded: String(decoding: PackageResources.name_folding_txt, as: UTF8.self))

        @inline(__always)
        func range(of value: UInt32) -> Range<Int>? {
            if value < 0x10000 {
                let entry = plane0[Int(value)]
                guard entry != 0 else { return nil }
                let start = Int(entry >> 8)
                return start..<(start + Int(entry & 0xFF) - 1)
            }
            return others[value]
        }

        init(encoded: String) {
            var plane0 = [UInt32](repeating: 0, count: 0x10000)
            var others: [UInt32: Range<Int>] = [:]
            var scalars: [UInt32] = []
            // One `SCALAR:FOLDED` entry a line (`;` between entries works too); `#` starts a comment line.
            for entry in encoded.split(whereSeparator: { $0 == ";" || $0 == "\n" }) where !entry.hasPrefix("#") {
                let parts = entry.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, let source = UInt32(parts[0], radix: 16) else { continue }
                let start = scalars.count
                for piece in parts[1].split(separator: ".") {
                    if let folded = UInt32(piece, radix: 16) { scalars.append(folded) }
                }
                if source < 0x10000 {
                    // Count + 1, so that an entry folding to nothing (a mark) is not 0.
                    plane0[Int(source)] = UInt32(start) << 8 | UInt32(scalars.count - start + 1)
                } else {
                    others[source] = start..<scalars.count
                }
            }
            self.plane0 = plane0
            self.others = others
            self.scalars = scalars
        }
    }
}

extension NameFolding {
    /// Whether a folded name starts with a folded query.
    public static func hasPrefix(_ folded: String, _ foldedQuery: String) -> Bool {
        folded.utf8.starts(with: foldedQuery.utf8)
    }

    /// The smallest string greater than every string starting with `foldedPrefix`, for index
    /// range scans (`folded >= prefix AND folded < upperBound`) in byte (UTF-8) order.
    public static func upperBound(ofPrefix foldedPrefix: String) -> String {
        foldedPrefix + "\u{10FFFF}"
    }
}
