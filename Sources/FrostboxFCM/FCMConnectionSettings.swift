import FrostboxCore
import FrostboxPushEngine

/// Limits of the FCM transport, the same for every app of a router.
public struct FCMConnectionSettings: Sendable, Hashable {
    /// Deadline of one `messages:send` request, from sending to the whole answer read.
    public var requestTimeout: Duration = .seconds(15)
    /// Deadline of one token request (the token endpoint is another server, with its own pace).
    public var tokenRequestTimeout: Duration = .seconds(15)
    /// Deadline of a TCP + TLS connection set-up.
    public var connectTimeout: Duration = .seconds(5)
    /// Largest answer body read; more is dropped (FCM's are well under 2 KiB).
    public var maximumResponseBytes = 64 * 1024
    /// Messages of one app in flight at once (HTTP/2 streams), spread over as few connections
    /// of `streamsPerConnection` as hold them (`fcm.max_concurrent_sends`).
    public var maximumConcurrentSends = 400
    /// Streams in flight per connection at most; FCM's `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// lowers it when smaller.
    public var streamsPerConnection = 100

    public init() {}

    /// The push engine's settings for one app's gateway.
    var http2: HTTP2ConnectionSettings {
        var settings = HTTP2ConnectionSettings()
        let streams = max(1, streamsPerConnection)
        let sends = max(1, maximumConcurrentSends)
        settings.maximumConnections = (sends + streams - 1) / streams
        settings.streamsPerConnection = (sends + settings.maximumConnections - 1) / settings.maximumConnections
        settings.requestTimeout = requestTimeout
        settings.connectTimeout = connectTimeout
        settings.maximumResponseBodySize = maximumResponseBytes
        return settings
    }
}
