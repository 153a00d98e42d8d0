import NIOCore
import NIOHTTP2

/// Keeps an HTTP/2 connection honest: when nothing has arrived for `interval`, it sends a
/// PING; when that PING is not acknowledged within `timeout`, it closes the connection, so
/// the requests that would otherwise wait on a dead socket go to a fresh one. Sits right
/// after the `NIOHTTP2Handler`, seeing every connection-level frame.
final class HTTP2KeepaliveHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let interval: TimeAmount
    private let timeout: TimeAmount
    private var lastRead: NIODeadline = .uptimeNanoseconds(0)
    private var outstandingPing: UInt64?
    private var pingCounter: UInt64 = 0
    private var timer: Scheduled<Void>?

    init(interval: TimeAmount, timeout: TimeAmount) {
        self.interval = interval
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastRead = context.eventLoop.now
        schedule(context: context, in: interval)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastRead = context.eventLoop.now
        let frame = unwrapInboundIn(data)
        if case .ping(let ping, ack: true) = frame.payload, ping.integer == outstandingPing {
            outstandingPing = nil
        }
        context.fireChannelRead(data)
    }

    private func schedule(context: ChannelHandlerContext, in delay: TimeAmount) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            handler.value.tick(context: boundContext.value)
        }
    }

    private func tick(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let now = context.eventLoop.now
        if outstandingPing != nil {
            // The PING went unanswered: the connection is dead even if TCP has not noticed.
            context.close(promise: nil)
            return
        }
        let quiet = now - lastRead
        if quiet >= interval {
            pingCounter &+= 1
            outstandingPing = pingCounter
            let frame = HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: pingCounter), ack: false))
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
            schedule(context: context, in: timeout)
        } else {
            schedule(context: context, in: interval - quiet)
        }
    }
}

/// Merges the flushes issued within one event-loop tick into one. Every HTTP/2 request
/// otherwise flushes (and so encrypts a TLS record and makes a `write` system call) on its own;
/// under load, dozens of requests are written per tick and one flush carries them all. Sits
/// between the TLS handler and the `NIOHTTP2Handler`.
final class FlushCoalescingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private var flushPending = false

    func flush(context: ChannelHandlerContext) {
        guard !flushPending else { return }
        flushPending = true
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            handler.value.flushPending = false
            boundContext.value.flush()
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // Whatever is buffered goes out before the close.
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.close(mode: mode, promise: promise)
    }
}
