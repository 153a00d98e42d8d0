/// The gauges of the APNs transport behind the push port (the core's metrics speak of alerts
/// and pushes; these name the gateway's connections and streams). Names kept as they were.
enum PushTransportMetrics {
    /// Gauge: pushes handed to the sender and not yet answered (HTTP/2 streams in flight).
    static let streamsInFlight = "frostbox_apns_streams_in_flight"
    /// Gauge: open APNs connections.
    static let connections = "frostbox_apns_connections"

    /// `# HELP` texts of these gauges.
    static let help: [String: String] = [
        streamsInFlight: "HTTP/2 streams to APNs awaiting an answer (pushes handed over and unanswered, without APNs).",
        connections: "Open APNs connections.",
    ]
}
