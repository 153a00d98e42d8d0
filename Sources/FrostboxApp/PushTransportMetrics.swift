import FrostboxCore

/// The gauges of the push transports behind the push port, by platform (the core's metrics
/// speak of alerts and pushes; these name the gateways' connections and streams), and of the
/// pacers that keep an app within its quota. Before the push engine they were
/// `frostbox_apns_connections` and `frostbox_apns_streams_in_flight`, APNs only (README, upgrade notes).
enum PushTransportMetrics {
    /// Gauge by `platform`: HTTP/2 streams awaiting an answer.
    static let streamsInFlight = "frostbox_push_streams_in_flight"
    /// Gauge by `platform`: open HTTP/2 connections to the gateways.
    static let connections = "frostbox_push_connections"
    /// Gauges by `budget` (`fcm.<package name>`): the quota, waits and pauses of each paced app.
    static let pacerMessagesPerMinute = "frostbox_push_pacer_messages_per_minute"
    static let pacerWaitedSeconds = "frostbox_push_pacer_waited_seconds"
    static let pacerPauses = "frostbox_push_pacer_pauses"
    static let pacerPausedSeconds = "frostbox_push_pacer_paused_seconds"

    /// `# HELP` texts of these gauges.
    static let help: [String: String] = [
        streamsInFlight: "HTTP/2 streams to the push gateways awaiting an answer, by platform.",
        connections: "Open HTTP/2 connections to the push gateways, by platform.",
        pacerMessagesPerMinute: "The quota each paced app is kept within, messages a minute.",
        pacerWaitedSeconds: "Time sends of each paced app spent waiting for its budget or a pause since start, summed over sends.",
        pacerPauses: "Pauses each paced app made since start because the platform asked to wait (Retry-After).",
        pacerPausedSeconds: "What is left of each paced app's pause in force, seconds.",
    ]
}

/// What `MeteredPushSender` reads of the transports after pushes.
public struct PushTransportGauges: Sendable {
    /// Open connections by platform (`ios`, `android`).
    public var connections: @Sendable () -> [String: Int]
    /// Streams awaiting an answer by platform.
    public var streamsInFlight: @Sendable () -> [String: Int]
    /// Each paced app.
    public var pacing: @Sendable () -> [PushPacing]

    public init(
        connections: @escaping @Sendable () -> [String: Int], streamsInFlight: @escaping @Sendable () -> [String: Int],
        pacing: @escaping @Sendable () -> [PushPacing] = { [] }
    ) {
        self.connections = connections
        self.streamsInFlight = streamsInFlight
        self.pacing = pacing
    }
}
