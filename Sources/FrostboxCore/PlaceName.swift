/// A subscriber's name for a place: 1–200 code points with at least one visible character,
/// no control characters, trimmed. Bidirectional controls (U+202A–U+202E, U+2066–U+2069,
/// the marks U+200E, U+200F, U+061C) are stripped: an override could make a name shown in a
/// push read otherwise than it was typed.
public struct PlaceName: Sendable, Hashable, CustomStringConvertible {
    public static let maximumLength = 200
    /// The trimmed name.
    public let value: String

    public init(_ raw: String) throws(ValidationError) {
        var stripped = String.UnicodeScalarView()
        stripped.append(contentsOf: raw.unicodeScalars.filter { !Self.isBidiControl($0) })
        let trimmed = String(stripped).trimmingWhitespace()
        guard !trimmed.isEmpty else {
            throw ValidationError(.invalidName, field: "name", "name must not be empty")
        }
        // Counted in code points, as both stores' checks and the OpenAPI `maxLength` count: a
        // character written with combining marks or a flag is several.
        guard trimmed.unicodeScalars.count <= Self.maximumLength else {
            throw ValidationError(.invalidName, field: "name", "name must be at most \(Self.maximumLength) characters (Unicode code points)")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError(.invalidName, field: "name", "name must not contain control characters")
        }
        guard trimmed.unicodeScalars.contains(where: Self.isVisible) else {
            throw ValidationError(.invalidName, field: "name", "name must contain a visible character (not only zero-width or blank ones)")
        }
        self.value = trimmed
    }

    /// Bidirectional embeddings, overrides, isolates and marks.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// Whether a scalar shows something: not white space, not a format character (zero-width
    /// space, joiners, word joiner, BOM), not a control, and not one of the letters and symbols
    /// that render blank (Hangul fillers, the blank Braille pattern, the Mongolian vowel separator).
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x180E: return false
        default: break
        }
        if scalar.properties.isWhitespace { return false }
        switch scalar.properties.generalCategory {
        case .format, .control, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse: return false
        default: return true
        }
    }

    /// For values read back from our own storage.
    public init(trusted value: String) { self.value = value }

    public var description: String { value }
}

extension StringProtocol {
    /// The string without leading and trailing white space (Unicode-aware, no Foundation).
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[first...last])
        return String(result)
    }
}
