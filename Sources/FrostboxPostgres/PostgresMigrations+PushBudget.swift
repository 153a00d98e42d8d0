extension PostgresMigrations {
    /// The push pacers' shared budget (`PostgresPushBudget`): messages taken per key (`fcm.<package
    /// name>`) and window (epoch seconds of its start).
    static let pushBudget: [String] = [
        """
        CREATE TABLE push_budget (
            key TEXT NOT NULL,
            window_start BIGINT NOT NULL,
            used INTEGER NOT NULL CHECK (used >= 0),
            PRIMARY KEY (key, window_start)
        )
        """
    ]
}
