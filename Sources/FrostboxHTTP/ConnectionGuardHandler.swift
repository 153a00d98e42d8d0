import Foundation
import NIOCore
import NIOHTTP1

/// Carries out `ConnectionAdmission` and `ConnectionTimeline` on one connection. It sits
/// between NIO's HTTP/1 decoder and Hummingbird's codec, where the request's version and
/// `Connection` header are still visible; every decision is the state types'.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Sent inbound by `RequestBytesObserver` whenever bytes arrive.
    struct BytesArrived {}

    private let registry: ConnectionRegistry
    private var timeline: ConnectionTimeline
    private var id: ConnectionAdmission.ID?
    private var started = false
    private var timer: Scheduled<Void>?

    init(registry: ConnectionRegistry, limits: ConnectionLimits) {
        self.registry = registry
        self.timeline = ConnectionTimeline(limits: limits)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is BytesArrived else { return context.fireUserInboundEventTriggered(event) }
        perform(timeline.bytesArrived(at: Self.now()), context: context)
    }

    /// A `Content-Length` value: its digits, one too large for `Int` (up to 2^64 − 1, which the
    /// HTTP parser takes) as `Int.max`, so it is over any limit; anything else nil.
    static func declaredLength(_ value: String) -> Int? {
        let digits = value.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(digits) ?? .max
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let length = head.headers.first(name: "content-length").flatMap(Self.declaredLength)
            switch timeline.headRead(keepAlive: head.isKeepAlive, declaredBodyLength: length) {
            case .forward: context.fireChannelRead(data)
            case .discard, .rejectLater: break
            case .rejectNow: writeRejection(context: context)
            }
        case .body:
            if !timeline.discardsInbound { context.fireChannelRead(data) }
        case .end:
            let discard = timeline.discardsInbound
            timeline.endRead()
            if !discard { context.fireChannelRead(data) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            if timeline.responseHeadWritten(status: Int(head.status.code)) {
                head.headers.replaceOrAdd(name: "connection", value: "close")
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            let (action, rejectNow) = timeline.responseEnded(at: Self.now())
            if case .finish = action {
                finish(context: context, last: data, promise: promise, action: action)
                return
            }
            context.write(data, promise: promise)
            if rejectNow {
                writeRejection(context: context)
            } else {
                perform(action, context: context)
            }
        }
    }

    // MARK: Carrying out

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        guard let id = registry.opened(context.channel) else {
            context.close(promise: nil)
            return
        }
        self.id = id
        perform(timeline.opened(at: Self.now()), context: context)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        if let id {
            registry.closed(id)
            self.id = nil
        }
    }

    private func perform(_ action: ConnectionTimeline.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .schedule(let at), .finish(let at):
            timer?.cancel()
            timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: Self.deadline(at)) { [self] in
                timer = nil
                perform(timeline.timerFired(at: Self.now()), context: context)
            }
        case .close:
            timer?.cancel()
            timer = nil
            context.close(promise: nil)
        }
    }

    /// Writes `last` (the final part of the last answer), then stops sending and lingers.
    private func finish(context: ChannelHandlerContext, last: NIOAny, promise: EventLoopPromise<Void>?, action: ConnectionTimeline.Action) {
        let written = context.eventLoop.makePromise(of: Void.self)
        if let promise { written.futureResult.cascade(to: promise) }
        context.writeAndFlush(last, promise: written)
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            context.close(mode: .output, promise: nil)
            perform(action, context: context)
        }
    }

    /// Answers 413 for a request whose declared body is over the limit, without reading it.
    private func writeRejection(context: ChannelHandlerContext) {
        let body = APIError.contentTooLarge.jsonBody
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json; charset=utf-8")
        headers.add(name: "content-length", value: String(body.count))
        headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .payloadTooLarge, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        finish(context: context, last: wrapOutboundOut(.end(nil)), promise: nil, action: timeline.rejectionWritten(at: Self.now()))
    }

    private static func now() -> ConnectionTimeline.Instant {
        .nanoseconds(Int64(clamping: NIODeadline.now().uptimeNanoseconds))
    }

    private static func deadline(_ instant: ConnectionTimeline.Instant) -> NIODeadline {
        .uptimeNanoseconds(UInt64(clamping: max(0, instant.inNanoseconds)))
    }
}

/// First in the pipeline: tells `ConnectionGuardHandler` that bytes arrived, before the
/// decoder has made anything of them (the header timeout runs from a request's first byte).
final class RequestBytesObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireUserInboundEventTriggered(ConnectionGuardHandler.BytesArrived())
        context.fireChannelRead(data)
    }
}
