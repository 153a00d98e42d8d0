/// The unit a subscriber reads temperatures in. Thresholds are always stored in °C.
public enum TemperatureUnit: String, Sendable, Codable, CaseIterable {
    case celsius = "C"
    case fahrenheit = "F"

    /// Parses `C`/`F` case-insensitively; nil or empty means Celsius.
    public init(parsing raw: String?) throws(ValidationError) {
        guard let raw, !raw.isEmpty else {
            self = .celsius
            return
        }
        switch raw.uppercased() {
        case "C": self = .celsius
        case "F": self = .fahrenheit
        default: throw ValidationError(.invalidUnit, field: "unit", "unit must be C or F")
        }
    }

    /// Converts a Celsius value into this unit.
    public func fromCelsius(_ celsius: Double) -> Double {
        switch self {
        case .celsius: celsius
        case .fahrenheit: celsius * 9 / 5 + 32
        }
    }

    /// Converts a value in this unit to Celsius.
    public func toCelsius(_ value: Double) -> Double {
        switch self {
        case .celsius: value
        case .fahrenheit: (value - 32) * 5 / 9
        }
    }
}
