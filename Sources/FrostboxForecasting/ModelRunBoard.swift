import FrostboxCore
import Logging

/// The latest run of each weather model, asked of the source at most once per model within
/// `reuseSeconds` (the chunks of one notify run share one look), and, given a book, once
/// between all the instances of one database. A model whose metadata fails is left out of
/// the answer: the boxes depending on it fall back to the time-based TTL, with one warning
/// per failed look.
public actor ModelRunBoard {
    let source: any ModelRunSource
    let book: (any ModelRunBook)?
    let reuseSeconds: Int64
    let maximumConcurrentChecks: Int
    let logger: Logger
    /// The last check of each model made here or read from the book.
    var checks: [String: ModelRunCheck] = [:]
    /// The availability time of each model's run last seen, to tell a new run.
    var seen: [String: Int64] = [:]

    /// What one look found.
    public struct Look: Sendable, Hashable {
        /// The latest run of each model that is known.
        public var latest: [String: ModelRun] = [:]
        /// Metadata requests made for this look.
        public var requests = 0
        /// Runs seen here for the first time.
        public var newRuns: [ModelRun] = []
        /// Models whose latest run is not known.
        public var unknown: [String] = []
    }

    public init(
        source: any ModelRunSource, book: (any ModelRunBook)? = nil, reuseSeconds: Int64 = 600, maximumConcurrentChecks: Int = 4,
        logger: Logger = Logger(label: "frostbox.model-runs")
    ) {
        self.source = source
        self.book = book
        self.reuseSeconds = max(0, reuseSeconds)
        self.maximumConcurrentChecks = max(1, maximumConcurrentChecks)
        self.logger = logger
    }

    /// The latest runs of `models` at `now`.
    public func look(at models: Set<String>, now: Int64) async -> Look {
        let since = now - reuseSeconds + 1
        var wanted = models.sorted().filter { model in checks[model].map { $0.checkedAt < since } ?? true }
        var look = Look()
        if let book, !wanted.isEmpty {
            do {
                let shared = try await book.checks(of: wanted, since: since)
                for (model, check) in shared { checks[model] = check }
                wanted.removeAll { shared[$0] != nil }
            } catch {
                logger.warning("shared model runs unreadable; asking the source", metadata: ["error": "\(error)"])
            }
        }
        if !wanted.isEmpty {
            let fresh = await ask(wanted, now: now)
            look.requests = fresh.count
            for check in fresh { checks[check.model] = check }
            let failed = fresh.filter { $0.run == nil }.map(\.model)
            if !failed.isEmpty {
                logger.warning(
                    "model run metadata unavailable: boxes depending on these models use the time-based TTL",
                    metadata: ["models": "\(failed.joined(separator: ","))"])
            }
            if let book {
                do {
                    try await book.record(fresh)
                } catch {
                    logger.warning("could not share the model runs", metadata: ["error": "\(error)"])
                }
            }
        }
        for model in models.sorted() {
            guard let run = checks[model]?.run else {
                look.unknown.append(model)
                continue
            }
            look.latest[model] = run
            if seen[model] != run.availableAt {
                seen[model] = run.availableAt
                look.newRuns.append(run)
            }
        }
        return look
    }

    /// Asks the source for each model, a bounded number at a time.
    func ask(_ models: [String], now: Int64) async -> [ModelRunCheck] {
        let source = source
        let logger = logger
        return await withTaskGroup(of: ModelRunCheck.self) { group in
            var pending = models[...]
            var inFlight = 0
            var found: [ModelRunCheck] = []
            while let model = pending.popFirst() {
                if inFlight >= maximumConcurrentChecks, let check = await group.next() {
                    inFlight -= 1
                    found.append(check)
                }
                inFlight += 1
                group.addTask {
                    switch await source.latestRun(of: model) {
                    case .success(let run):
                        return ModelRunCheck(model: model, checkedAt: now, run: run)
                    case .failure(let failure):
                        logger.debug("model run metadata failed", metadata: ["model": "\(model)", "failure": "\(failure)"])
                        return ModelRunCheck(model: model, checkedAt: now, run: nil)
                    }
                }
            }
            for await check in group { found.append(check) }
            return found
        }
    }
}
