extension Coordinate {
    /// Parses `LAT,LON` in decimal degrees (white space around either number allowed), e.g.
    /// `60.19,25.01`: the one parser of that form, for every command that takes a point.
    /// Numbers are plain decimals (digits, sign, point, exponent: no hex, no `nan`); the
    /// coordinate is then validated as `init(latitude:longitude:)` does.
    public init(parsing text: some StringProtocol, field: String = "near") throws(ValidationError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let latitude = Self.degrees(parts[0]), let longitude = Self.degrees(parts[1]) else {
            throw ValidationError(.invalidCoordinate, field: field, "\(field) must be LAT,LON in decimal degrees, e.g. 60.19,25.01")
        }
        try self.init(latitude: latitude, longitude: longitude)
    }

    static func degrees(_ text: some StringProtocol) -> Double? {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy({ "0123456789+-.eE".unicodeScalars.contains($0) }) else {
            return nil
        }
        return Double(trimmed)
    }
}
