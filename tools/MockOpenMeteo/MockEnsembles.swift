/// The mock's ensemble models: how many members each has (control included) and how a
/// member's temperatures lie around the deterministic ones, so a test (or a checker) knows
/// the share of members at or below any threshold exactly.
public enum MockEnsembles {
    /// Used when a request names no model.
    public static let defaultModel = "icon_seamless"

    /// Members of a `models=` name on `/v1/ensemble`: Open-Meteo's counts for the real models,
    /// 1 (mean and spread) for a name ending in `_mean`, 10 for any other name.
    public static func members(of model: String) -> Int {
        if model.hasSuffix("_mean") { return 1 }
        let known = [
            "icon_seamless": 40, "icon_global": 40, "icon_eu": 40, "icon_d2": 20, "ecmwf_ifs025": 51, "ecmwf_ifs04": 51, "ecmwf_aifs025": 51,
            "gfs_seamless": 31, "gfs025": 31, "gfs05": 31, "gem_global": 21,
        ]
        return known[model] ?? 10
    }

    /// Member `index` (0 = control) of `count`: `spread × (2 index / (count − 1) − 1)` °C from the
    /// deterministic temperature, evenly from −spread to +spread (0 for a single member).
    public static func offset(member index: Int, of count: Int, spread: Double) -> Double {
        count <= 1 ? 0 : spread * (2 * Double(index) / Double(count - 1) - 1)
    }

    /// The standard deviation of the offsets of `count` members (what a mean model reports as
    /// `temperature_2m_spread`).
    public static func standardDeviation(of count: Int, spread: Double) -> Double {
        count <= 1 ? 0 : spread * ((Double(count) + 1) / (3 * (Double(count) - 1))).squareRoot()
    }
}
