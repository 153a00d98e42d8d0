import Logging
import NIOCore
import NIOHPACK
import Synchronization

/// One request of a batch handed to a gateway: the parts `HTTP2Transport.post` takes.
package struct HTTP2Outgoing: Sendable {
    package let path: String
    /// The regular header fields but `authorization` and `content-length`.
    package let fields: HPACKHeaders
    package let authorization: String?
    package let body: ByteBuffer
    /// On a connection that carries no other request meanwhile.
    package var alone = false

    package init(path: String, fields: HPACKHeaders, authorization: String?, body: ByteBuffer, alone: Bool = false) {
        self.path = path
        self.fields = fields
        self.authorization = authorization
        self.body = body
        self.alone = alone
    }
}

/// A batch's answer handler: a class, so that the answers to one batch that come in one
/// burst of reads are handed over together.
package final class HTTP2BatchReply: Sendable {
    let answer: @Sendable ([(Int, HTTP2Exchange)]) -> Void
    init(_ answer: @escaping @Sendable ([(Int, HTTP2Exchange)]) -> Void) { self.answer = answer }
}

/// The connections to one gateway (one endpoint, one TLS identity), spread over the event
/// loops of a group: one `HTTP2Transport` per loop — its own connections and pool state
/// machine, its share of the connection limits — so the frame path of one gateway uses every
/// core the group has. Requests are dealt to the transport with the fewest unanswered; a
/// batch is cut in one slice per transport, each handed over in one hop.
package final class HTTP2Gateway: Sendable {
    package let endpoint: HTTP2Endpoint
    private let transports: [HTTP2Transport]

    /// - Parameters:
    ///   - loops: the loops to spread over; at most `settings.maximumConnections` of them are
    ///     used (each transport has at least one connection).
    ///   - answerHeader: the header of each answer that is kept (APNs: `apns-id`; FCM:
    ///     `retry-after`; Web Push: `ttl` from a success, `retry-after` from the rest).
    ///   - indexPaths: every request has the same `:path` (FCM): HPACK keeps it in its table.
    ///   - resolve: where each connection goes (nil: the endpoint's host, resolved as usual).
    package init(
        endpoint: HTTP2Endpoint, identity: HTTP2ClientIdentity?, trustedCertificatesPath: String?,
        settings: HTTP2ConnectionSettings, maximumResends: Int, answerHeader: HTTP2AnswerHeader, indexPaths: Bool = false, loops: [any EventLoop],
        random: @escaping @Sendable () -> Double, resolve: HTTP2AddressResolver? = nil, logger: Logger
    ) throws(HTTP2SetupError) {
        precondition(!loops.isEmpty, "a gateway needs an event loop")
        let context = try HTTP2Transport.makeSSLContext(
            endpoint: endpoint, identity: identity, trustedCertificatesPath: trustedCertificatesPath)
        let connections = max(1, settings.maximumConnections)
        let count = min(loops.count, connections)
        let shared = Self.shares(of: connections, over: count)
        let alone = Self.shares(of: max(4, connections), over: count)
        transports = (0..<count).map { index in
            var share = settings
            share.maximumConnections = shared[index]
            return HTTP2Transport(
                endpoint: endpoint, sslContext: context, settings: share, aloneConnections: alone[index],
                maximumResends: maximumResends, answerHeader: answerHeader, indexPaths: indexPaths, eventLoop: loops[index], random: random,
                resolve: resolve, logger: logger)
        }
        self.endpoint = endpoint
    }

    /// `total` cut in `count` parts that differ by at most one, each at least one.
    package static func shares(of total: Int, over count: Int) -> [Int] {
        (0..<count).map { max(1, total / count + ($0 < total % count ? 1 : 0)) }
    }

    /// Event loops (transports) this gateway's connections are spread over.
    package var loopCount: Int { transports.count }

    /// HTTP/2 connections open now, over every loop.
    package var openConnections: Int { transports.reduce(0) { $0 + $1.openConnections } }

    /// HTTP/2 connections open now, per loop.
    package var openConnectionsPerLoop: [Int] { transports.map(\.openConnections) }

    /// Requests on streams now, over every loop.
    package var streamsInFlight: Int { transports.reduce(0) { $0 + $1.streamsInFlight } }

    /// Sends one request on the least-loaded transport and waits for its answer.
    package func post(path: String, fields: HPACKHeaders, authorization: String?, body: ByteBuffer, alone: Bool = false) async -> HTTP2Exchange {
        await leastLoaded().post(path: path, fields: fields, authorization: authorization, body: body, alone: alone)
    }

    /// Sends a batch without waiting, cut in slices dealt to the least-loaded transports:
    /// `answer` gets each request's answer exactly once (with its index in `batch`), on the loop
    /// of the transport that carried it, the answers of one burst of reads together. Returns
    /// what `cancel` needs.
    package func send(_ batch: [HTTP2Outgoing], answer: @escaping @Sendable ([(Int, HTTP2Exchange)]) -> Void) -> Ticket {
        let reply = HTTP2BatchReply(answer)
        var loads = transports.map(\.unanswered)
        let slice = (batch.count + transports.count - 1) / max(1, transports.count)
        var ids: [[HTTP2RequestID]] = Array(repeating: [], count: transports.count)
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
    package func cancel(_ ticket: Ticket) {
        for (transport, ids) in zip(transports, ticket.ids) { transport.cancel(ids) }
    }

    /// The requests of one `send`, per transport.
    package struct Ticket: Sendable {
        fileprivate let ids: [[HTTP2RequestID]]
    }

    /// Closes every connection of every loop.
    package func shutdown() async {
        for transport in transports { await transport.shutdown() }
    }

    private func leastLoaded() -> HTTP2Transport {
        transports.min { $0.unanswered < $1.unanswered } ?? transports[0]
    }
}
