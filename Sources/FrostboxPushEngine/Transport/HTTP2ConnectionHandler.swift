import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// The end of one connection's pipeline: turns frames into calls on its transport, and writes
/// the transport's requests as frames. Lives on the transport's loop.
final class HTTP2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    let id: HTTP2ConnectionID
    private let transport: HTTP2Transport
    private let answerHeader: HTTP2AnswerHeader
    private let settingsTimeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var flushPending = false
    private var sawSettings = false
    private var wasActive = false
    private var lastError: String?
    private var settingsTimer: Scheduled<Void>?
    private var inboundConsumed = 0

    init(id: HTTP2ConnectionID, transport: HTTP2Transport, settingsTimeout: TimeAmount) {
        self.id = id
        self.transport = transport
        self.answerHeader = transport.answerHeader
        self.settingsTimeout = settingsTimeout
    }

    var closeFuture: EventLoopFuture<Void>? { context?.channel.closeFuture }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        wasActive = true
        transport.connectionActive(id)
        // TLS and the server's SETTINGS must come within the connect timeout too.
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        settingsTimer = context.eventLoop.scheduleTask(in: settingsTimeout) {
            let handler = bound.value
            if !handler.sawSettings {
                handler.lastError = "no HTTP/2 settings from the server within the connect timeout"
                handler.close()
            }
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        settingsTimer?.cancel()
        transport.connectionClosed(id, wasActive: wasActive, error: lastError)
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let stream = Int32(frame.streamID)
        switch frame.payload {
        case .headers(let headers):
            let status = headers.headers.first(name: ":status").flatMap { Int($0) }
            transport.connectionHeaders(
                id, stream: stream, status: status, header: answerHeader.value(status: status, in: headers.headers),
                endStream: headers.endStream)
        case .data(let data):
            creditConnectionWindow(data.data.readableBytes + (data.paddingBytes ?? 0))
            if case .byteBuffer(let bytes) = data.data {
                transport.connectionData(id, stream: stream, bytes: bytes, endStream: data.endStream)
            } else if data.endStream {
                transport.connectionData(id, stream: stream, bytes: ByteBuffer(), endStream: true)
            }
        case .rstStream(let code):
            transport.connectionReset(id, stream: stream, code: code)
        case .goAway(let lastStreamID, let code, _):
            transport.connectionGoAway(id, lastStreamID: Int32(lastStreamID), code: code)
        case .settings(.settings(let settings)):
            sawSettings = true
            settingsTimer?.cancel()
            let limit = settings.last { $0.parameter == .maxConcurrentStreams }.map(\.value)
            transport.connectionSettings(id, maxConcurrentStreams: limit)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        transport.connectionReadComplete(id)
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Stream-level errors (a write to a stream the server already closed) concern one
        // request, which its frames already settled; connection-level ones close the channel
        // (NIOSSL and NIOHTTP2Handler do so themselves), and the reason is kept for the log.
        transport.connectionError(id, error: error)
        if error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.NoSuchStream { return }
        lastError = "\(error)"
        if !sawSettings { context.close(promise: nil) }
    }

    /// Gives the server back the connection window its DATA used. Without a stream multiplexer
    /// `NIOHTTP2Handler` leaves connection-level flow control to the user; without this, 64 KiB
    /// of answer bodies (error reasons) would stall the connection for good.
    private func creditConnectionWindow(_ bytes: Int) {
        inboundConsumed += bytes
        guard inboundConsumed >= 32 * 1024, let context else { return }
        let increment = inboundConsumed
        inboundConsumed = 0
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
        scheduleFlush()
    }

    /// Writes one request; `scheduleFlush` sends it.
    func write(stream: Int32, headers: HPACKHeaders, body: ByteBuffer) {
        guard let context else { return }
        let id = HTTP2StreamID(stream)
        // Should the stream not open (the connection going away under it), the request was never
        // seen by the server: it goes out again elsewhere rather than wait for its deadline.
        let written = context.eventLoop.makePromise(of: Void.self)
        let transport = self.transport
        let connection = self.id
        written.futureResult.whenFailure { error in
            transport.connectionWriteFailed(connection, stream: stream, error: error)
        }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers)))), promise: written)
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
    }

    /// One flush for every request written in this event-loop tick.
    func scheduleFlush() {
        guard !flushPending, let context else { return }
        flushPending = true
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = bound.value
            handler.flushPending = false
            handler.context?.flush()
        }
    }

    /// RST_STREAM(CANCEL): the request on `stream` was given up.
    func reset(stream: Int32) {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: HTTP2StreamID(stream), payload: .rstStream(.cancel))), promise: nil)
    }

    func close() {
        context?.close(promise: nil)
    }
}
