import Foundation
import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// One request/response exchange on one HTTP/2 stream.
final class MockAPNsStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let connection: MockAPNsConnection
    private let streamID: HTTP2StreamID
    private var headers: HPACKHeaders?
    private var body = ByteBuffer()
    private var bodySize = 0
    private var answered = false

    init(connection: MockAPNsConnection, streamID: HTTP2StreamID) {
        self.connection = connection
        self.streamID = streamID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if headers == nil {
                headers = frame.headers
            }
            if frame.endStream {
                finish(context: context)
            } else if connection.configuration.answerBeforeBody {
                finish(context: context, early: true)
            }
        case .data(let frame):
            if case .byteBuffer(var buffer) = frame.data {
                bodySize += buffer.readableBytes
                if body.readableBytes <= MockAPNsValidator.maximumPayloadSize {
                    body.writeBuffer(&buffer)
                }
            }
            if frame.endStream { finish(context: context) }
        default:
            break
        }
    }

    private func finish(context: ChannelHandlerContext, early: Bool = false) {
        guard !answered, !connection.stalled, let headers else { return }
        answered = true
        if let stall = connection.configuration.stallAfterRequests, connection.id == 1, connection.requestsFinished + 1 >= stall {
            // Stop reading: no answer, no PING acknowledgement, as a hung gateway.
            connection.stalled = true
            context.channel.parent?.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            return
        }
        connection.state.requestReceived(messageID: headers.first(name: "apns-id"))
        let auth = connection.authentication(parent: context.channel.parent)
        connection.requestsFinished += 1
        var answer: MockAPNsValidator.Answer
        if early {
            // The body is not read: judge the headers with a stand-in payload, record none.
            answer = connection.validator.judge(
                headers: headers, body: ByteBuffer(string: #"{"aps":{}}"#), bodySize: 10, auth: auth, connection: connection.id,
                stream: Int(Int32(streamID)))
            if case .accept(var delivery) = answer {
                delivery.payload = ""
                answer = .accept(delivery)
            }
        } else {
            answer = connection.validator.judge(
                headers: headers, body: body, bodySize: bodySize, auth: auth, connection: connection.id,
                stream: Int(Int32(streamID)))
        }
        if let limit = connection.configuration.resetAfterRequests, connection.requestsFinished == limit {
            answer = .reset
        }
        if let lower = connection.configuration.lowerStreamLimit, connection.requestsFinished == lower.afterRequests,
            let parent = context.channel.parent
        {
            // Before the answer, so a client has the new limit by the time it reads the answer.
            connection.limitLowered = true
            let settings: HTTP2Settings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: lower.to)]
            parent.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings))), promise: nil)
        }
        let early = early
        let finalAnswer = answer
        let latency = connection.configuration.latency
        if latency > .zero {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .init(latency)) {
                handler.value.respond(finalAnswer, early: early, context: boundContext.value)
            }
        } else {
            respond(answer, early: early, context: context)
        }
    }

    private func respond(_ answer: MockAPNsValidator.Answer, early: Bool, context: ChannelHandlerContext) {
        if connection.stalled { return }
        switch answer {
        case .resetStream:
            connection.state.streamReset()
            context.writeAndFlush(wrapOutboundOut(.rstStream(.internalError)), promise: nil)
        case .reset:
            connection.state.reset()
            connection.state.rejected("ConnectionReset")
            context.channel.parent?.close(promise: nil)
        case .accept(let delivery):
            let head = HPACKHeaders([(":status", "200"), ("apns-id", delivery.messageID)])
            let promise = context.eventLoop.makePromise(of: Void.self)
            let state = connection.state
            promise.futureResult.whenSuccess { state.delivered(delivery) }
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: head, endStream: true))), promise: promise)
            if early {
                // The body was never read: tell the client to stop sending it; the answer stands.
                context.writeAndFlush(wrapOutboundOut(.rstStream(.noError)), promise: nil)
            }
        case .reject(let status, let reason, let timestamp):
            connection.state.rejected(reason)
            var json = #"{"reason":"\#(reason)""#
            if let timestamp { json += #","timestamp":\#(timestamp)"# }
            json += "}"
            var buffer = context.channel.allocator.buffer(capacity: json.utf8.count)
            buffer.writeString(json)
            let head = HPACKHeaders([
                (":status", String(status)), ("content-type", "application/json"), ("content-length", String(json.utf8.count)),
                ("apns-id", headers?.first(name: "apns-id") ?? UUID().uuidString.lowercased()),
            ])
            context.write(wrapOutboundOut(.headers(.init(headers: head))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(buffer), endStream: true))), promise: nil)
        }
    }
}
