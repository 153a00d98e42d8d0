/// What a forecast source charges for one HTTP attempt, by how far the request got (the
/// rule is Open-Meteo's, the one source today; another source states its own). Open-Meteo
/// documents the weight of an answered request (one per location at up to 10 variables and
/// 14 days) but not what errors cost; Frostbox counts an error answer as one call, the least
/// any answered request can cost, and a request cut off after it was sent at its full weight,
/// because the server may have answered it all the same. Erring high only spends less.
public enum AttemptCharge: Sendable, Hashable {
    /// The request never reached the server (connection refused, host not found, connect
    /// timeout, TLS handshake failed): nothing.
    case nothing
    /// The server answered with an error status (4xx, 5xx, 429 included): one unit.
    case errorAnswer
    /// The server answered 200 (decodable or not), or the request was cut off after it was
    /// sent (deadline, connection lost): the request's full weight.
    case fullWeight

    /// The weight to settle a reservation of `reserved` to.
    public func weight(reserved: Double) -> Double {
        switch self {
        case .nothing: 0
        case .errorAnswer: min(1, reserved)
        case .fullWeight: reserved
        }
    }
}

/// What one HTTP attempt came to, as a `RequestGate` is told after it.
public struct AttemptReport: Sendable, Hashable {
    /// What the server charged for it.
    public var charge: AttemptCharge
    /// Whether it produced a usable answer.
    public var succeeded: Bool
    /// The pause the server asked for with a 429 naming its minutely, hourly or daily limit:
    /// that window is spent at the server until `until`, whatever our own ledger says.
    public var pause: QuotaHold?

    public init(charge: AttemptCharge, succeeded: Bool, pause: QuotaHold? = nil) {
        self.charge = charge
        self.succeeded = succeeded
        self.pause = pause
    }
}
