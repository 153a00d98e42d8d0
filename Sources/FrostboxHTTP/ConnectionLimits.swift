/// The server's limits on HTTP connections (`server.*` keys): how long a client may take to
/// send a request head, how long a kept-alive connection may idle, how many connections one
/// client address and the whole server may hold, and the largest body a request may declare.
public struct ConnectionLimits: Sendable, Equatable {
    /// Longest time from a connection's opening, or from the first byte of a later request,
    /// to the end of the request's head; the connection is closed past it. Nil: no limit.
    public var headerTimeout: Duration?
    /// Longest time a kept-alive connection may wait, after an answer, for the first byte of
    /// its next request. Nil: no limit.
    public var keepAliveTimeout: Duration?
    /// Most connections open at once; past it the heaviest client's connections give way first.
    public var maximumConnections: Int
    /// Most connections one client address (the TCP peer: IPv4 address or IPv6 /64) may hold;
    /// 0: no cap per address.
    public var maximumConnectionsPerAddress: Int
    /// Largest request body; a request declaring a longer `Content-Length` is answered 413 at
    /// once and its connection closed, the body unread.
    public var maximumBodySize: Int

    public init(
        headerTimeout: Duration? = .seconds(10), keepAliveTimeout: Duration? = .seconds(60), maximumConnections: Int = 1_024,
        maximumConnectionsPerAddress: Int = 256, maximumBodySize: Int = FrostboxRequestContext.maximumBodySize
    ) {
        self.headerTimeout = headerTimeout
        self.keepAliveTimeout = keepAliveTimeout
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.maximumBodySize = maximumBodySize
    }
}
