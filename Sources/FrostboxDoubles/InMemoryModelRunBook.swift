import FrostboxCore
import Synchronization

/// A `ModelRunBook` in memory, with the PostgreSQL one's rule: a check replaces its model's
/// earlier one unless that one is newer.
public final class InMemoryModelRunBook: ModelRunBook {
    private let state = Mutex<[String: ModelRunCheck]>([:])

    public init() {}

    public func checks(of models: [String], since: Int64) async throws -> [String: ModelRunCheck] {
        state.withLock { checks in
            var found: [String: ModelRunCheck] = [:]
            for model in models { if let check = checks[model], check.checkedAt >= since { found[model] = check } }
            return found
        }
    }

    public func record(_ checks: [ModelRunCheck]) async throws {
        state.withLock { stored in
            for check in checks where (stored[check.model]?.checkedAt ?? .min) <= check.checkedAt { stored[check.model] = check }
        }
    }
}

/// A `ModelRunSource` whose runs a test publishes; counts the questions asked per model. A
/// model with no run published, or marked failing, answers `notPublished`.
public final class ScriptedModelRunSource: ModelRunSource {
    private struct State {
        var runs: [String: ModelRun] = [:]
        var failing: Set<String> = []
        var asked: [String: Int] = [:]
    }

    private let state = Mutex(State())

    public init(_ runs: [ModelRun] = []) {
        state.withLock { state in for run in runs { state.runs[run.model] = run } }
    }

    /// Makes `run` its model's latest.
    public func publish(_ run: ModelRun) { state.withLock { $0.runs[run.model] = run } }

    /// Makes a model's metadata fail (or work again).
    public func setFailing(_ model: String, _ failing: Bool = true) {
        state.withLock { state in
            if failing { state.failing.insert(model) } else { state.failing.remove(model) }
        }
    }

    /// Questions asked, by model.
    public var asked: [String: Int] { state.withLock { $0.asked } }

    public func latestRun(of model: String) async -> Result<ModelRun, ModelRunFailure> {
        state.withLock { state in
            state.asked[model, default: 0] += 1
            guard !state.failing.contains(model), let run = state.runs[model] else { return .failure(.notPublished) }
            return .success(run)
        }
    }
}
