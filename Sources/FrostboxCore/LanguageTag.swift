/// Language tags as search requests carry them: `lang=fi`, `zh-Hant`, or an
/// `Accept-Language` header.
public enum LanguageTag {
    /// The longest tag accepted.
    public static let maximumLength = 35

    /// Validates a `lang` value: a 2–3 letter ISO 639 code, optionally followed by
    /// `-`-separated subtags of 1–8 letters or digits (`fi`, `pt-BR`, `zh-Hant`).
    public static func parse(_ raw: String, field: String = "lang") throws(ValidationError) -> String {
        guard isWellFormed(raw) else {
            throw ValidationError(.invalidField, field: field, "\(field) must be a language tag such as fi, pt-BR or zh-Hant")
        }
        return raw
    }

    /// The tags of an `Accept-Language` header, most wanted first (by `q`, then order).
    /// Lenient: malformed entries, `*` and `q=0` are ignored, never refused.
    public static func acceptLanguage(_ header: String) -> [String] {
        var entries: [(tag: String, q: Double, index: Int)] = []
        for (index, part) in header.split(separator: ",").prefix(32).enumerated() {
            let pieces = part.split(separator: ";")
            guard let first = pieces.first else { continue }
            let tag = first.trimmingWhitespace()
            guard tag != "*", isWellFormed(tag) else { continue }
            var q = 1.0
            for parameter in pieces.dropFirst() {
                let trimmed = parameter.trimmingWhitespace()
                if trimmed.hasPrefix("q="), let value = Double(trimmed.dropFirst(2)), value.isFinite { q = value }
            }
            guard q > 0 else { continue }
            entries.append((tag, q, index))
        }
        return entries.sorted { $0.q != $1.q ? $0.q > $1.q : $0.index < $1.index }.map(\.tag)
    }

    /// The primary subtag (`pt` of `pt-BR`), lower-cased.
    static func primary(of tag: String) -> Substring {
        tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? ""
    }

    static func isWellFormed(_ tag: String) -> Bool {
        guard tag.utf8.count <= maximumLength else { return false }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.utf8.count), first.utf8.allSatisfy(isLetter) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.utf8.count) && part.utf8.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) }
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte | 0x20) }
}
