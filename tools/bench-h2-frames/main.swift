import ArgumentParser
import Foundation
import FrostboxCore
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

// bench-h2-frames: a measurement spike, not a Frostbox component. How fast can APNs-shaped
// pushes go over HTTP/2 from Swift when streams are plain frames on one NIOHTTP2Handler
// (no child channel, pipeline or request state machine per stream, as AsyncHTTPClient
// has)? It does the per-push work of Frostbox's client (a fresh apns-id, token path and
// JSONEncoder payload per push, the same headers and a JWT-sized bearer) and answers the
// question of issue 5's benchmark: what the frame-level design would buy. It has none of
// the client's error handling beyond resending what a GOAWAY left unanswered.
//
//   bench-h2-frames --host 127.0.0.1:PORT --trust CERT.pem [--count 100000]
//                   [--concurrency 1000] [--streams 1000] [--runs 3]

struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench-h2-frames")
    @Option(help: "The sink, HOST:PORT.") var host: String
    @Option(help: "PEM certificate to trust.") var trust: String
    @Option(help: "Pushes per run.") var count = 100_000
    @Option(help: "Pushes in flight in all.") var concurrency = 1_000
    @Option(help: "Streams in flight per connection; concurrency / streams connections share the work.") var streams = 1_000
    @Option(help: "Runs; the median is printed last.") var runs = 3
}

let options = Options.parseOrExit()
let hostPort = options.host.split(separator: ":")
guard hostPort.count == 2, let port = Int(hostPort[1]) else { Options.exit(withError: ValidationError("--host takes HOST:PORT")) }
let host = String(hostPort[0])
let trust = options.trust
let count = options.count
let concurrency = options.concurrency
let runs = options.runs
let streams = options.streams
let bearer = "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIMTIzNDUifQ.eyJpc3MiOiJURUFNMTIzNDU2IiwiaWF0IjoxODAwMDAwMDAwfQ."
    + String(repeating: "x", count: 86)

let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}()

let payload = PushPayload(
    aps: APSPayload(
        alert: .init(title: "Frost tonight", body: "Minimum −3 °C near Tampere", locKey: "FROST_ALERT", locArgs: ["-3"]),
        sound: "default", threadID: "frost", interruptionLevel: "time-sensitive"),
    frost: .init(box: "61.50,23.75", night: "2026-11-22", level: "hard", minimumC: -3))

/// Builds one push's frames: the per-push work of the real client.
func frames(index: Int, stream: HTTP2StreamID) -> (HTTP2Frame, HTTP2Frame) {
    let hex = String(index, radix: 16)
    let token = String(repeating: "a", count: 64 - hex.count) + hex
    let body = try! encoder.encode(payload)
    let headers: HPACKHeaders = [
        ":method": "POST", ":scheme": "https", ":path": "/3/device/" + token, ":authority": host,
        "apns-topic": "com.example.frost", "apns-push-type": "alert", "apns-priority": "10",
        "apns-id": UUID().uuidString.lowercased(), "apns-collapse-id": "frost-60.20,25.00",
        "content-type": "application/json", "content-length": String(body.count), "authorization": bearer,
    ]
    return (
        HTTP2Frame(streamID: stream, payload: .headers(.init(headers: headers))),
        HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: true))))
}

/// One run's shared state; touched only on the single event loop.
final class Run: @unchecked Sendable {  // confined to the one event loop
    var next = 0
    var answered = 0
    var ok = 0
    var resend: [Int] = []
    let promise: EventLoopPromise<Void>
    var connections = 0

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func take() -> Int? {
        if let index = resend.popLast() { return index }
        guard next < count else { return nil }
        defer { next += 1 }
        return next
    }
}

/// Sends pushes as frames on one connection, up to its share of the in-flight limit.
final class FrameSender: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    let run: Run
    let limit: Int
    let reconnect: () -> Void
    var nextStream = 1
    var pending: [HTTP2StreamID: Int] = [:]
    var status: [HTTP2StreamID: Bool] = [:]
    var closing = false

    init(run: Run, limit: Int, reconnect: @escaping () -> Void) {
        self.run = run
        self.limit = limit
        self.reconnect = reconnect
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        fill(context)
    }

    func fill(_ context: ChannelHandlerContext) {
        var wrote = false
        while !closing, pending.count < limit, let index = run.take() {
            let stream = HTTP2StreamID(nextStream)
            nextStream += 2
            pending[stream] = index
            let (headers, data) = frames(index: index, stream: stream)
            context.write(wrapOutboundOut(headers), promise: nil)
            context.write(wrapOutboundOut(data), promise: nil)
            wrote = true
        }
        if wrote { context.flush() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            if let code = headers.headers.first(name: ":status") { status[frame.streamID] = code == "200" }
            if headers.endStream { complete(frame.streamID) }
        case .data(let data):
            if data.endStream { complete(frame.streamID) }
        case .rstStream:
            if let index = pending.removeValue(forKey: frame.streamID) { run.resend.append(index) }
        case .goAway(let lastStreamID, _, _):
            closing = true
            // Streams above the last one the server processed were never seen: resend.
            for (stream, index) in pending where stream > lastStreamID {
                pending[stream] = nil
                run.resend.append(index)
            }
            reconnect()
        default:
            break
        }
    }

    func complete(_ stream: HTTP2StreamID) {
        guard pending.removeValue(forKey: stream) != nil else { return }
        run.answered += 1
        if status.removeValue(forKey: stream) == true { run.ok += 1 }
        if run.answered == count { run.promise.succeed(()) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        fill(context)
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        for (_, index) in pending { run.resend.append(index) }
        pending.removeAll()
        context.fireChannelInactive()
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
var tls = TLSConfiguration.makeClientConfiguration()
tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(trust))
tls.applicationProtocols = ["h2"]
let sslContext = try NIOSSLContext(configuration: tls)

@Sendable func connect(_ run: Run) {
    run.connections += 1
    let bootstrap = ClientBootstrap(group: loop)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let sync = channel.pipeline.syncOperations
                try sync.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: nil))
                try sync.addHandler(NIOHTTP2Handler(mode: .client))
                try sync.addHandler(FrameSender(run: run, limit: min(streams, concurrency), reconnect: { connect(run) }))
            }
        }
    bootstrap.connect(host: host, port: port).whenFailure { error in run.promise.fail(error) }
}

var rates: [Double] = []
for index in 1...runs {
    let start = ContinuousClock.now
    let run = try await loop.submit { () -> (Run, EventLoopFuture<Void>) in
        let run = Run(promise: loop.makePromise())
        for _ in 0..<max(1, concurrency / max(1, streams)) { connect(run) }
        return (run, run.promise.futureResult)
    }.get()
    try await run.1.get()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let (ok, connections) = try await loop.submit { (run.0.ok, run.0.connections) }.get()
    rates.append(Double(count) / seconds)
    print(String(format: "run %d: %.0f pushes/s (200: %d of %d, %d connection(s))", index, Double(count) / seconds, ok, count, connections))
}
print(String(format: "median: %.0f pushes/s over %d runs of %d (concurrency %d)", rates.sorted()[rates.count / 2], runs, count, concurrency))
try await group.shutdownGracefully()
