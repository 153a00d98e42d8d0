import Foundation
import Testing

extension TestPostgresCluster {
    /// Whether the PostgreSQL tests run here: PostgreSQL's server programs are installed, or
    /// `isRequired` (then a missing installation fails them instead of skipping them).
    public static var isEnabled: Bool {
        isRequired || (try? findBinDirectory()) != nil
    }

    /// `FROSTBOX_REQUIRE_POSTGRES=1`, as `.ci/run` sets it: the PostgreSQL tests are
    /// mandatory, so that CI's coverage never drops to a skip.
    public static var isRequired: Bool {
        ProcessInfo.processInfo.environment["FROSTBOX_REQUIRE_POSTGRES"] == "1"
    }

    /// Why a PostgreSQL test was skipped, and how to run it.
    public static let skipReason =
        "PostgreSQL's server programs (initdb, pg_ctl) are not installed: install PostgreSQL 15 (`apt-get install postgresql-15`) or set FROSTBOX_PG_BIN to run the PostgreSQL tests; .ci/run sets FROSTBOX_REQUIRE_POSTGRES=1, which never skips them"
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite or test only where PostgreSQL can be started (`TestPostgresCluster.isEnabled`);
    /// elsewhere it is reported as skipped with `TestPostgresCluster.skipReason`.
    public static var requiresPostgres: Self {
        .enabled(if: TestPostgresCluster.isEnabled, Comment(rawValue: TestPostgresCluster.skipReason))
    }
}
