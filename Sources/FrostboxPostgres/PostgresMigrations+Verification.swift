extension PostgresMigrations {
    /// Devices proven real, as SQLite's `v14-device-verification`: `verified_at` (NULL:
    /// pending, every device stored before included), a partial index of the pending ones,
    /// `box_notify_order_verified` — `box_notify_order` (the one order rule) without the boxes
    /// in which no device is verified (what runs ask for when devices must be proven real) — and the runs
    /// table's verified, rejected and left-out-unverified counts.
    static let deviceVerification: [String] = [
        "ALTER TABLE device ADD COLUMN verified_at BIGINT",
        "CREATE INDEX device_pending ON device (token COLLATE \"C\") WHERE verified_at IS NULL",
        """
        CREATE VIEW box_notify_order_verified AS
        SELECT row_number() OVER (ORDER BY o.position) AS position, o.box
        FROM box_notify_order AS o
        WHERE EXISTS (SELECT 1 FROM subscription AS v JOIN device AS d ON d.token = v.token
                      WHERE v.box = o.box AND d.verified_at IS NOT NULL)
        """,
        "ALTER TABLE notify_run ADD COLUMN devices_verified INTEGER NOT NULL DEFAULT 0 CHECK (devices_verified >= 0)",
        "ALTER TABLE notify_run ADD COLUMN devices_rejected INTEGER NOT NULL DEFAULT 0 CHECK (devices_rejected >= 0)",
        "ALTER TABLE notify_run ADD COLUMN boxes_unverified INTEGER NOT NULL DEFAULT 0 CHECK (boxes_unverified >= 0)",
    ]
}
