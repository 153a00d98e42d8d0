import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 child channel with the connection guard in its pipeline: a
/// `RequestBytesObserver` first and a `ConnectionGuardHandler` right after NIO's request
/// decoder. Everything else (decoder limits, codec, graceful-shutdown handling) is
/// Hummingbird's own set-up.
public struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    public typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let registry: ConnectionRegistry
    let limits: ConnectionLimits

    public var responder: HTTPChannelHandler.Responder { base.responder }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(ConnectionGuardHandler(registry: registry, limits: limits), position: .after(decoder))
            try pipeline.addHandler(RequestBytesObserver(), position: .first)
            return value
        }
    }

    public func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// An HTTP/1 server whose connections are held to `limits`, counted in `registry`.
    public static func guardedHTTP1(limits: ConnectionLimits, registry: ConnectionRegistry) -> HTTPServerBuilder {
        .init { responder in
            // The guard has its own idle and header timeouts; Hummingbird's would race them.
            GuardedHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: nil)), registry: registry, limits: limits)
        }
    }
}
