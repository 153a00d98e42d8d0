/// Quota budgets of a forecast source, in weight units per sliding window. The free
/// Open-Meteo API allows fewer than 600 a minute, 5,000 an hour and 10,000 a day.
///
/// Windows slide: the budget holds for every window of that length ending at any second,
/// which includes the calendar minute, hour and day a source resets on, so staying within
/// them never trips the source's own limits.
public struct QuotaBudgets: Sendable, Hashable, Codable {
    /// Weight allowed within any 60 s.
    public var perMinute: Double
    /// Weight allowed within any 3,600 s.
    public var perHour: Double
    /// Weight allowed within any 86,400 s.
    public var perDay: Double

    public init(perMinute: Double = 600, perHour: Double = 5_000, perDay: Double = 10_000) {
        self.perMinute = perMinute
        self.perHour = perHour
        self.perDay = perDay
    }

    /// The free Open-Meteo API's limits.
    public static let openMeteoFree = QuotaBudgets()

    /// Each window as (length in seconds, budget), shortest first.
    public var windows: [(seconds: Int64, budget: Double)] {
        [(60, perMinute), (3_600, perHour), (86_400, perDay)]
    }

    /// The longest window, in seconds: charges older than this never matter again.
    public static let longestWindowSeconds: Int64 = 86_400
}

/// One charge against the budgets: a request's weight at the second it was started.
public struct QuotaCharge: Sendable, Hashable, Codable {
    /// UTC epoch second the request was started.
    public var at: Int64
    /// Its weight.
    public var weight: Double
    /// What it was spent on when a share of the budgets was set aside for it (`QuotaShare`);
    /// nil: forecasts.
    public var purpose: String?

    public init(at: Int64, weight: Double, purpose: String? = nil) {
        self.at = at
        self.weight = weight
        self.purpose = purpose
    }
}

/// A part of the budgets one purpose may use at most (issue #48: checking nights against the
/// archive never takes more than `verification.budget_share` of the forecast budget). Its
/// charges count against the whole budgets like any other, and against the share on their own.
public struct QuotaShare: Sendable, Hashable {
    /// The name its charges carry (`verification`).
    public var purpose: String
    /// The share of every window's budget, 0…1.
    public var fraction: Double

    public init(purpose: String, fraction: Double) {
        self.purpose = purpose
        self.fraction = min(max(fraction, 0), 1)
    }

    /// The budgets scaled to the share.
    public func budgets(of whole: QuotaBudgets) -> QuotaBudgets {
        QuotaBudgets(perMinute: whole.perMinute * fraction, perHour: whole.perHour * fraction, perDay: whole.perDay * fraction)
    }
}

/// Weight used within each window ending at a moment.
public struct QuotaUsage: Sendable, Hashable, Codable {
    public var lastMinute: Double
    public var lastHour: Double
    public var lastDay: Double
    public var budgets: QuotaBudgets

    public init(lastMinute: Double, lastHour: Double, lastDay: Double, budgets: QuotaBudgets) {
        self.lastMinute = lastMinute
        self.lastHour = lastHour
        self.lastDay = lastDay
        self.budgets = budgets
    }
}

/// What the budgets allow for a request of `units` locations, each of one weight.
public enum QuotaDecision: Sendable, Hashable {
    /// This many units (between the minimum asked and the units asked) fit now.
    case fits(units: Int)
    /// Not even the minimum fits now; it will at `retryAfter` (nil: never, the minimum
    /// alone exceeds a budget).
    case exhausted(retryAfter: Int64?)
}

extension QuotaBudgets {
    /// Weight used in each window ending at `now` (a window of length L holds charges
    /// with `at > now − L`). A charge stamped after `now` (another process's clock, or a
    /// caller's stale `now`) counts in every window: it is spent all the same.
    public func usage(of charges: [QuotaCharge], at now: Int64) -> QuotaUsage {
        var used = [0.0, 0.0, 0.0]
        for charge in charges {
            for (i, window) in windows.enumerated() where charge.at > now - window.seconds {
                used[i] += charge.weight
            }
        }
        return QuotaUsage(lastMinute: used[0], lastHour: used[1], lastDay: used[2], budgets: self)
    }

    /// How many of `units` locations of `weightPerUnit` each can be charged at `now`
    /// without any window passing its budget; at least `minimumUnits`, else when that
    /// minimum would fit (assuming nothing else is charged meanwhile).
    public func decide(units: Int, weightPerUnit: Double, minimumUnits: Int = 1, charges: [QuotaCharge], at now: Int64) -> QuotaDecision {
        let minimum = max(1, min(minimumUnits, units))
        guard units > 0, weightPerUnit > 0 else { return .fits(units: max(0, units)) }
        let usage = usage(of: charges, at: now)
        let used = [usage.lastMinute, usage.lastHour, usage.lastDay]
        var fitting = units
        for (i, window) in windows.enumerated() {
            let room = window.budget - used[i]
            // A hair of tolerance so that exact multiples (0.4 × 10 …) are not lost to rounding.
            let count = room < 0 ? 0 : Int(((room + 1e-9) / weightPerUnit).rounded(.down))
            fitting = min(fitting, count)
        }
        if fitting >= minimum { return .fits(units: fitting) }
        return .exhausted(retryAfter: retryAfter(weight: Double(minimum) * weightPerUnit, charges: charges, at: now))
    }

    /// `decide` for a request charged to `share` (when set): it must fit the whole budgets
    /// with every charge, and the share's budgets with the share's charges alone.
    public func decide(
        units: Int, weightPerUnit: Double, minimumUnits: Int = 1, charges: [QuotaCharge], at now: Int64, share: QuotaShare?
    ) -> QuotaDecision {
        let whole = decide(units: units, weightPerUnit: weightPerUnit, minimumUnits: minimumUnits, charges: charges, at: now)
        guard let share else { return whole }
        let own = share.budgets(of: self).decide(
            units: units, weightPerUnit: weightPerUnit, minimumUnits: minimumUnits, charges: charges.filter { $0.purpose == share.purpose }, at: now)
        switch (whole, own) {
        case (.fits(let a), .fits(let b)): return .fits(units: min(a, b))
        case (.exhausted(let a), .exhausted(let b)): return .exhausted(retryAfter: a.flatMap { a in b.map { max(a, $0) } })
        case (.exhausted(let retry), _), (_, .exhausted(let retry)): return .exhausted(retryAfter: retry)
        }
    }

    /// The first second at or after `now` when `weight` fits every window, or nil when it
    /// exceeds a budget on its own.
    public func retryAfter(weight: Double, charges: [QuotaCharge], at now: Int64) -> Int64? {
        var when = now
        let sorted = charges.sorted { $0.at < $1.at }
        for window in windows {
            guard weight <= window.budget + 1e-9 else { return nil }
            var inWindow = sorted.filter { $0.at > now - window.seconds }
            var used = inWindow.reduce(0) { $0 + $1.weight }
            var fitsAt = now
            // Charges leave the window oldest first: a charge at `t` stops counting at `t + L`.
            while used + weight > window.budget + 1e-9, !inWindow.isEmpty {
                let leaving = inWindow.removeFirst()
                used -= leaving.weight
                fitsAt = leaving.at + window.seconds
            }
            when = max(when, fitsAt)
        }
        return when
    }
}

/// A granted reservation: a request of `units` locations may start now; its `weight` is
/// already charged and is settled once the outcome is known.
public struct QuotaReservation: Sendable, Hashable {
    /// Ledger id of the charge.
    public var id: Int64
    /// Locations granted.
    public var units: Int
    /// Weight charged.
    public var weight: Double
    /// When it was charged, UTC epoch seconds.
    public var at: Int64

    public init(id: Int64, units: Int, weight: Double, at: Int64) {
        self.id = id
        self.units = units
        self.weight = weight
        self.at = at
    }
}

/// A pause the source imposed (a 429 naming an hourly or daily limit): no request until `until`.
public struct QuotaHold: Sendable, Hashable, Codable {
    /// UTC epoch second from which requests may start again.
    public var until: Int64
    /// The source's reason, as it said it.
    public var reason: String

    public init(until: Int64, reason: String) {
        self.until = until
        self.reason = reason
    }
}

/// The answer of a ledger to a reservation request.
public enum QuotaGrant: Sendable, Hashable {
    /// Start the request; the weight is charged.
    case granted(QuotaReservation)
    /// Starting it would break a budget; nothing was charged.
    case exhausted(retryAfter: Int64?)
    /// The source asked us to pause; nothing was charged.
    case held(QuotaHold)
}

/// The durable record of what was spent against a forecast source's quota. Every request
/// is charged at its full weight before it starts (so no request can break a budget, even
/// across processes sharing the ledger) and settled after, in the same ledger, to what the
/// source charged for it (for Open-Meteo: full weight for a 200 or a request cut off after
/// it was sent, 1 for an error answer, 0 for one that never left). A source's 429 naming a
/// window is recorded as a hold.
public protocol QuotaLedger: Sendable {
    /// The budgets this ledger enforces.
    var budgets: QuotaBudgets { get }
    /// Atomically: when no hold is active and at least `minimumUnits` of `units` locations
    /// fit every budget at `now`, charges as many as fit (up to `units`) and grants them.
    func reserve(units: Int, weightPerUnit: Double, minimumUnits: Int, at now: Int64) async throws -> QuotaGrant
    /// `reserve` charged to `share`: what is granted also fits the share's budgets against
    /// the share's own charges, and the charge carries the share's purpose.
    func reserve(units: Int, weightPerUnit: Double, minimumUnits: Int, at now: Int64, share: QuotaShare?) async throws -> QuotaGrant
    /// Replaces a reservation's weight by what the request really cost (a weight below 0 is 0);
    /// a reservation the ledger does not know is ignored.
    func settle(_ reservation: QuotaReservation, weight: Double) async throws
    /// Weight used in each window ending at `now`.
    func usage(at now: Int64) async throws -> QuotaUsage
    /// Records a pause the source asked for; later reservations before `hold.until` are refused.
    func hold(_ hold: QuotaHold, at now: Int64) async throws
    /// The pause in force at `now`, if any.
    func activeHold(at now: Int64) async throws -> QuotaHold?
}

extension QuotaLedger {
    public func reserve(units: Int, weightPerUnit: Double, minimumUnits: Int, at now: Int64) async throws -> QuotaGrant {
        try await reserve(units: units, weightPerUnit: weightPerUnit, minimumUnits: minimumUnits, at: now, share: nil)
    }
}
