/// What is fetched and cached per box: a deterministic forecast (`BoxForecast`) or an
/// ensemble (`EnsembleForecast`). The cached providers of `FrostboxForecasting` serve either
/// by the same rules: fresh by model run or TTL, fetched in batches charged to the ledger.
public protocol BoxPayload: Sendable {
    /// The box it is about.
    var box: GeoBox? { get }
    /// When it was fetched, UTC epoch seconds.
    var fetchedAt: Int64 { get }
    /// The model runs it came from, by model name (empty when they were not known).
    var runs: [ModelRun] { get set }
}

extension BoxForecast: BoxPayload {}
