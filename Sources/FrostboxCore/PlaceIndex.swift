/// Where places are searched by name prefix near a point. Implementations return at most
/// `query.limit` matches, one per place, read by `PlaceSearchPlan` and ordered by
/// `PlaceRanking`.
public protocol PlaceIndex: Sendable {
    /// Places whose name (any written form) starts with the query after folding (or, for
    /// "name region", with the name, in the region): near `query.near` within
    /// `query.radiusKilometres` first, completed from anywhere when fewer than `limit` are
    /// near; worldwide by population without a point.
    func search(_ query: PlaceQuery) async throws -> [PlaceMatch]
}
