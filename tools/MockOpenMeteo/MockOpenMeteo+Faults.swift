import Foundation

/// The checks every data endpoint (`/v1/forecast`, `/v1/ensemble`, `/v1/archive`) makes in
/// the same order: the API key, then injected 429s and errors, then the budgets; and the fault
/// a served answer gets.
extension MockOpenMeteo {
    /// Why a request's key is refused (401 without one, 400 with a wrong one); nil: accepted.
    func keyRefusal(_ state: State, parameters: [String: String]) -> (status: Int, reason: String)? {
        guard let required = state.scenario.apiKey else { return nil }
        guard let given = parameters["apikey"] else { return (401, "API key required. Please add &apikey= to the URL.") }
        return given == required ? nil : (400, "The supplied API key is invalid.")
    }

    /// An injected 429 or error, or a used-up budget window; nil: the request is served. Under the lock.
    func refusal(_ state: inout State) -> (status: Int, reason: String)? {
        if !state.scenario.faults.nextRateLimits.isEmpty {
            let name = state.scenario.faults.nextRateLimits.removeFirst()
            let reason: String =
                switch name {
                case "minute": Window.minute.reason
                case "hour": Window.hour.reason
                case "day": Window.day.reason
                default: name
                }
            return (429, reason)
        }
        if !state.scenario.faults.nextStatuses.isEmpty {
            let status = state.scenario.faults.nextStatuses.removeFirst()
            if status != 200 {
                return (status, status == 429 ? Window.minute.reason : "Injected failure \(status)")
            }
        } else if state.scenario.faults.serverErrorRate > 0, state.random.unit() < state.scenario.faults.serverErrorRate {
            return (state.scenario.faults.serverErrorStatus, "Injected failure \(state.scenario.faults.serverErrorStatus)")
        }
        // Budgets: refused when a window is already used up, as Open-Meteo does; charged once served.
        let now = state.scenario.now ?? Int64(Date().timeIntervalSince1970)
        if let budgets = state.scenario.budgets {
            for window in Window.allCases {
                let key = now / window.seconds
                if state.used[window]?.key != key { state.used[window] = (key, 0) }
                let limit: Double? =
                    switch window {
                    case .minute: budgets.minute
                    case .hour: budgets.hour
                    case .day: budgets.day
                    }
                if let limit, state.used[window]!.weight >= limit { return (429, window.reason) }
            }
        }
        return nil
    }

    /// The fault the answer to a served request gets (hanging ones are counted). Under the lock.
    func servedFault(_ state: inout State) -> Fault {
        let hang = Fault.hang(milliseconds: state.scenario.faults.hangMilliseconds)
        if state.scenario.faults.hangNext > 0 {
            state.scenario.faults.hangNext -= 1
            state.counters.hung += 1
            return hang
        } else if state.scenario.faults.hangRate > 0, state.random.unit() < state.scenario.faults.hangRate {
            state.counters.hung += 1
            return hang
        } else if state.scenario.faults.truncateNext > 0 {
            state.scenario.faults.truncateNext -= 1
            return .truncate
        } else if state.scenario.faults.dropLocationNext > 0 {
            state.scenario.faults.dropLocationNext -= 1
            return .dropLocation
        } else if state.scenario.faults.scrambleNext > 0 {
            state.scenario.faults.scrambleNext -= 1
            return .scramble
        } else if state.scenario.faults.truncateRate > 0, state.random.unit() < state.scenario.faults.truncateRate {
            return .truncate
        }
        return .none
    }

    /// Waits out a hanging answer (processed and charged, but answered after the client gave up),
    /// or less once hangs are released.
    func hang(_ fault: Fault) async {
        guard case .hang(let milliseconds) = fault else { return }
        let clock = ContinuousClock()
        let until = clock.now + .milliseconds(milliseconds)
        while clock.now < until, !state.withLock({ $0.hangsReleased }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
