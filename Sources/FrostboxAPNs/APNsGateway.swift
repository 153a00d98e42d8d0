import Logging
import NIOCore
import NIOHPACK
import Synchronization

/// One request of a batch handed to a gateway: the parts `APNsTransport.post` takes.
struct APNsOutgoing: Sendable {
    let path: String
    /// The regular header fields but `authorization` and `content-length`.
    let fields: HPACKHeaders
    let authorization: String?
    let body: ByteBuffer
    /// On a connection that carries no other request meanwhile.
    var alone = false
}

/// A batch's answer handler: a class, so that the answers to one batch that come in one
/// burst of reads are handed over together.
final class APNsBatchReply: Sendable {
    let answer: @Sendable ([(Int, APNsExchange)]) -> Void
    init(_ answer: @escaping @Sendable ([(Int, APNsExchange)]) -> Void) { self.answer = answer }
}

/// The connections to one gateway (one endpoint, one TLS identity), spread over the event
/// loops of a group: one `APNsTransport` per loop — its own connections and pool state
/// machine, its share of the connection limits — so the frame path of one gateway uses every
/// core the group has. Requests are dealt to the transport with the fewest unanswered; a
/// batch is cut in one slice per transport, each handed over in one hop.
final class APNsGateway: Sendable {
    let endpoint: APNsEndpoint
    private let transports: [APNsTransport]

    /// - Parameter loops: the loops to spread over; at most `settings.maximumConnections` of
    ///   them are used (each transport has at least one connection).
    init(
        endpoint: APNsEndpoint, identity: APNsClientIdentity?, trustedCertificatesPath: String?,
        settings: APNsConnectionSettings, maximumResends: Int, loops: [any EventLoop],
        random: @escaping @Sendable () -> Double, logger: Logger
    ) throws(APNsConfigurationError) {
        precondition(!loops.isEmpty, "a gateway needs an event loop")
        let context = try APNsTransport.makeSSLContext(
            endpoint: endpoint, identity: identity, trustedCertificatesPath: trustedCertificatesPath)
        let connections = max(1, settings.maximumConnections)
        let count = min(loops.count, connections)
        let shared = Self.shares(of: connections, over: count)
        let alone = Self.shares(of: max(4, connections), over: count)
        transports = (0..<count).map { index in
            var share = settings
            share.maximumConnections = shared[index]
            return APNsTransport(
                endpoint: endpoint, sslContext: context, settings: share, aloneConnections: alone[index],
                maximumResends: maximumResends, eventLoop: loops[index], random: random, logger: logger)
        }
        self.endpoint = endpoint
    }

    /// `total` cut in `count` parts that differ by at most one, each at least one.
    static func shares(of total: Int, over count: Int) -> [Int] {
        (0..<count).map { max(1, total / count + ($0 < total % count ? 1 : 0)) }
    }

    /// Event loops (transports) this gateway's connections are spread over.
    var loopCount: Int { transports.count }

    /// HTTP/2 connections open now, over every loop.
    var openConnections: Int { transports.reduce(0) { $0 + $1.openConnections } }

    /// HTTP/2 connections open now, per loop.
    var openConnectionsPerLoop: [Int] { transports.map(\.openConnections) }

    /// Requests on streams now, over every loop.
    var streamsInFlight: Int { transports.reduce(0) { $0 + $1.streamsInFlight } }

    /// Sends one request on the least-loaded transport and waits for its answer.
    func post(path: String, fields: HPACKHeaders, authorization: String?, body: ByteBuffer, alone: Bool = false) async -> APNsExchange {
        await leastLoaded().post(path: path, fields: fields, authorization: authorization, body: body, alone: alone)
    }

    /// Sends a batch without waiting, cut in slices dealt to the least-loaded transports:
    /// `answer` gets each request's answer exactly once (with its index in `batch`), on the loop
    /// of the transport that carried it, the answers of one burst of reads together. Returns
    /// what `cancel` needs.
    func send(_ batch: [APNsOutgoing], answer: @escaping @Sendable ([(Int, APNsExchange)]) -> Void) -> Ticket {
        let reply = APNsBatchReply(answer)
        var loads = transports.map(\.unanswered)
        let slice = (batch.count + transports.count - 1) / max(1, transports.count)
        var ids: [[APNsRequestID]] = Array(repeating: [], count: transports.count)
        var start = 0
        while start < batch.count {
            let index = loads.indices.min { loads[$0] < loads[$1] } ?? 0
            let end = min(batch.count, start + slice)
            ids[index] += transports[index].send(batch[start..<end], reply: reply)
            loads[index] += end - start
            start = end
        }
        return Ticket(ids: ids)
    }

    /// Gives up the requests of `ticket` that have not started yet.
    func cancel(_ ticket: Ticket) {
        for (transport, ids) in zip(transports, ticket.ids) { transport.cancel(ids) }
    }

    /// The requests of one `send`, per transport.
    struct Ticket: Sendable {
        fileprivate let ids: [[APNsRequestID]]
    }

    /// Closes every connection of every loop.
    func shutdown() async {
        for transport in transports { await transport.shutdown() }
    }

    private func leastLoaded() -> APNsTransport {
        transports.min { $0.unanswered < $1.unanswered } ?? transports[0]
    }
}
