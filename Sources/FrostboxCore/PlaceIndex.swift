/// Where places are searched by name prefix near a point. Implementations return at most
/// `query.limit` matches, one per place, ordered by `PlaceRanking`.
public protocol PlaceIndex: Sendable {
    /// Places whose name (any written form) starts with the query after folding: near
    /// `query.near` within `query.radiusKilometres`, or worldwide by population.
    func search(_ query: PlaceQuery) async throws -> [PlaceMatch]
}
