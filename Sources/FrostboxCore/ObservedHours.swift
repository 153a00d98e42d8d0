/// What happened at a box, hour by hour (issue #48): the observed (analysed) temperature of
/// each UTC hour an archive answered for, nil where it has no value yet.
public struct ObservedHours: Sendable, Hashable {
    public var box: GeoBox
    /// UTC epoch seconds of each hour, ascending.
    public var times: [Int64]
    /// °C, one per time; nil where the archive has no value (not yet analysed).
    public var temperaturesC: [Double?]

    public init(box: GeoBox, times: [Int64], temperaturesC: [Double?]) {
        self.box = box
        self.times = times
        self.temperaturesC = temperaturesC
    }

    /// The lowest temperature of the hours in `start..<end` (a night's counted window), or nil
    /// unless every hour of the window is there with a value: a night half analysed is not
    /// yet what happened.
    public func minimum(from start: Int64, to end: Int64) -> Double? {
        var lowest: Double?
        var covered = 0
        for (time, value) in zip(times, temperaturesC) where time >= start && time < end {
            guard let value, value.isFinite else { return nil }
            lowest = min(lowest ?? value, value)
            covered += 1
        }
        let expected = Int((end - start + 3_599) / 3_600)
        return covered >= expected ? lowest : nil
    }
}

/// Fetches what happened for a batch of boxes over whole UTC days, in one request plus
/// retries (the Open-Meteo archive: `/v1/archive`, hourly `temperature_2m`).
public protocol ObservationFetcher: Sendable {
    /// Most boxes per request.
    var batchSize: Int { get }
    /// Quota weight charged per box for a span of `days` days.
    func weightPerLocation(days: Int) -> Double
    /// The hours of UTC dates `first` through `last` for `boxes`, in their order, or the
    /// failure of the whole batch. `gate` is consulted around every attempt.
    func observations(
        for boxes: [GeoBox], from first: LocalDate, through last: LocalDate, gate: (any RequestGate)?
    ) async -> Result<
        [ObservedHours], ForecastFailure
    >
}
