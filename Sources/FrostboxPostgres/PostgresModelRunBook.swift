import FrostboxCore
import PostgresNIO

/// The `ModelRunBook` on PostgreSQL: one row per model in `model_run`, the latest run as last
/// asked of the source (or its failure) and when. Every instance reads it before asking the
/// source, so that the instances of a shared run ask once per model between them; two that
/// miss it at the same moment both ask, which costs nothing (metadata is not metered).
public struct PostgresModelRunBook: ModelRunBook {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func checks(of models: [String], since: Int64) async throws -> [String: ModelRunCheck] {
        guard !models.isEmpty else { return [:] }
        let rows = try await database.query(
            """
            SELECT model, checked_at, initialised_at, available_at FROM model_run
            WHERE model = ANY(\(models)) AND checked_at >= \(since)
            """)
        var found: [String: ModelRunCheck] = [:]
        for try await (model, checkedAt, initialised, available) in rows.decode((String, Int64, Int64?, Int64?).self) {
            let run = initialised.flatMap { initialised in available.map { ModelRun(model: model, initialisedAt: initialised, availableAt: $0) } }
            found[model] = ModelRunCheck(model: model, checkedAt: checkedAt, run: run)
        }
        return found
    }

    public func record(_ checks: [ModelRunCheck]) async throws {
        guard !checks.isEmpty else { return }
        // Null in the arrays stands for an unknown run (its failure text says so).
        _ = try await database.query(
            """
            INSERT INTO model_run (model, checked_at, initialised_at, available_at, failure)
            SELECT model, checked_at, NULLIF(initialised_at, -1), NULLIF(available_at, -1), NULLIF(failure, '')
            FROM unnest(\(checks.map(\.model)), \(checks.map(\.checkedAt)), \(checks.map { $0.run?.initialisedAt ?? -1 }),
                        \(checks.map { $0.run?.availableAt ?? -1 }), \(checks.map { $0.run == nil ? "unknown" : "" }))
                AS u(model, checked_at, initialised_at, available_at, failure)
            ON CONFLICT (model) DO UPDATE SET checked_at = excluded.checked_at, initialised_at = excluded.initialised_at,
                available_at = excluded.available_at, failure = excluded.failure
            WHERE model_run.checked_at <= excluded.checked_at
            """, writes: true
        ).collectCount()
    }
}
