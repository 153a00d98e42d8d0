extension PostgresMigrations {
    /// As SQLite's `v16-outbox-by-box`: the outbox keyed by box first, the order a run writes
    /// it in. Led by the device id, the unique key and the held index took one random insert
    /// per row (and again per recorded outcome, which is not a HOT update), so a chunk's write
    /// dirtied pages all over two growing indexes; box first, a chunk's entries land side by
    /// side. Measured in the engine alone: a 1.1M-row COPY 0.52× and its outcomes 0.65× of
    /// the device-first layout (docs/benchmarks.md, "The key order on PostgreSQL").
    ///
    /// - `UNIQUE (box, device_id, night, level)` replaces `(device_id, box, night, level)`: the
    ///   same rule, in write order. It serves the alerted-events read by box, so
    ///   `outbox_on_box` goes; `outbox_held` becomes `(box, device_id, night)`.
    /// - `device_id` loses its foreign key: `ON DELETE CASCADE` needs an index led by the
    ///   device id, the very index that cost the time. A device's rows go instead by the
    ///   trigger `outbox_of_deleted_device`, box by box, in the boxes it subscribes to and in
    ///   those it has left (`outbox_departed`, one row per device and box it unsubscribed
    ///   from, written by `outbox_departed_on_unsubscribe` whether or not it had alerts there
    ///   yet, so an alert planned before the unsubscription and written after it is found).
    ///   What the key also gave — a device removed since the subscription read is noticed,
    ///   and a concurrent delete waits for the chunk's commit — the writer keeps by locking
    ///   the chunk's devices `FOR KEY SHARE` (the lock the key's check took) before it writes.
    ///   Purge drops departed rows a day old whose box holds no row of the device any more.
    ///
    /// Rows whose device no longer subscribes to their box are recorded as departed on the way.
    static let outboxByBox: [String] = [
        """
        CREATE TABLE outbox_departed (
            device_id BIGINT NOT NULL,
            box BIGINT NOT NULL,
            departed_at BIGINT NOT NULL,
            PRIMARY KEY (device_id, box)
        )
        """,
        """
        INSERT INTO outbox_departed (device_id, box, departed_at)
        SELECT DISTINCT o.device_id, o.box, extract(epoch FROM now())::bigint
        FROM outbox AS o JOIN device AS d ON d.id = o.device_id
        WHERE NOT EXISTS (SELECT 1 FROM subscription AS s WHERE s.box = o.box AND s.token = d.token)
        """,
        "ALTER TABLE outbox DROP CONSTRAINT outbox_device_id_fkey",
        "ALTER TABLE outbox DROP CONSTRAINT outbox_device_id_box_night_level_key",
        "ALTER TABLE outbox ADD CONSTRAINT outbox_box_device_id_night_level_key UNIQUE (box, device_id, night, level)",
        "DROP INDEX outbox_on_box",
        "DROP INDEX outbox_held",
        "CREATE INDEX outbox_held ON outbox (box, device_id, night) WHERE status = 'pending' AND not_before IS NOT NULL",
        """
        CREATE FUNCTION frostbox_outbox_of_deleted_device() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM outbox WHERE device_id = OLD.id AND box IN (
                SELECT s.box FROM subscription AS s WHERE s.token = OLD.token
                UNION SELECT p.box FROM outbox_departed AS p WHERE p.device_id = OLD.id);
            DELETE FROM outbox_departed WHERE device_id = OLD.id;
            RETURN OLD;
        END
        $$
        """,
        """
        CREATE TRIGGER outbox_of_deleted_device BEFORE DELETE ON device
        FOR EACH ROW EXECUTE FUNCTION frostbox_outbox_of_deleted_device()
        """,
        """
        CREATE FUNCTION frostbox_outbox_departed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO outbox_departed (device_id, box, departed_at)
            SELECT d.id, OLD.box, extract(epoch FROM now())::bigint FROM device AS d
            WHERE d.token = OLD.token
              AND NOT EXISTS (SELECT 1 FROM subscription AS s WHERE s.token = OLD.token AND s.box = OLD.box)
            ON CONFLICT (device_id, box) DO UPDATE SET departed_at = excluded.departed_at;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER outbox_departed_on_unsubscribe AFTER DELETE ON subscription
        FOR EACH ROW EXECUTE FUNCTION frostbox_outbox_departed()
        """,
    ]
}
