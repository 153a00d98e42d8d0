import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import FrostboxPushEngine

@Suite("HTTP/2 keepalive pings")
struct HTTP2KeepaliveHandlerTests {
    private func makeChannel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTP2KeepaliveHandler(interval: .seconds(60), timeout: .seconds(20)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return channel
    }

    private func sentPing(_ channel: EmbeddedChannel) throws -> HTTP2PingData? {
        guard let frame = try channel.readOutbound(as: HTTP2Frame.self) else { return nil }
        if case .ping(let data, ack: false) = frame.payload { return data }
        return nil
    }

    @Test("a quiet connection is pinged, and stays open when the ping is answered")
    func answeredPing() throws {
        let channel = try makeChannel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(59))
        #expect(try sentPing(channel) == nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let ping = try #require(try sentPing(channel))
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .ping(ping, ack: true)))
        _ = try channel.readInbound(as: HTTP2Frame.self)
        channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test("an unanswered ping closes the connection")
    func unansweredPing() throws {
        let channel = try makeChannel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(try sentPing(channel) != nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        #expect(!channel.isActive)
    }

    @Test("a connection that keeps receiving frames is not pinged")
    func busyConnection() throws {
        let channel = try makeChannel()
        for _ in 0..<5 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(30))
            try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.ack)))
            _ = try channel.readInbound(as: HTTP2Frame.self)
        }
        #expect(try sentPing(channel) == nil)
        #expect(channel.isActive)
        _ = try channel.finish()
    }
}
