/// A subscriber's name for a place: 1–200 characters, no control characters, trimmed.
public struct PlaceName: Sendable, Hashable, CustomStringConvertible {
    public static let maximumLength = 200
    /// The trimmed name.
    public let value: String

    public init(_ raw: String) throws(ValidationError) {
        let trimmed = raw.trimmingWhitespace()
        guard !trimmed.isEmpty else {
            throw ValidationError(.invalidName, field: "name", "name must not be empty")
        }
        guard trimmed.count <= Self.maximumLength else {
            throw ValidationError(.invalidName, field: "name", "name must be at most \(Self.maximumLength) characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError(.invalidName, field: "name", "name must not contain control characters")
        }
        self.value = trimmed
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
