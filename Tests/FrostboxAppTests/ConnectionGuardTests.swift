import Foundation
import Testing

@testable import FrostboxApp
@testable import FrostboxHTTP

/// The connection limits on a real server over loopback sockets. 127.0.0.2 plays the slow or
/// flooding client, 127.0.0.1 everyone else (Linux routes all of 127.0.0.0/8 to loopback).
// One server at a time: the suite runs beside the others on two cores.
@Suite("Connection guard", .serialized, .timeLimit(.minutes(10)))
struct ConnectionGuardTests {
    static let flooder = "127.0.0.2"
    static let client = "127.0.0.1"
    static let registration = #"{"token": "00112233445566778899aabbccddeeff"}"#

    /// Opens `count` connections from `flooder`: every other one sends half a request head.
    static func flood(port: Int, count: Int) throws -> [LoopbackConnection] {
        try (0..<count).map { index in
            let connection = try LoopbackConnection(port: port, source: flooder, readTimeout: 5)
            if index.isMultiple(of: 2) { try? connection.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ") }
            return connection
        }
    }

    @Test("with the server full of one address's idle and slow-header connections, /health and a device write from another address are answered")
    func floodDoesNotLockOthersOut() async throws {
        try await GracefulShutdownTests.withServer(configure: { config in
            config.maximumConnections = 40
            config.maximumConnectionsPerAddress = 0
            config.headerTimeout = .seconds(600)
            config.idleTimeout = .seconds(600)
        }) { port, _, group in
            let held = try Self.flood(port: port, count: 120)
            for _ in 0..<3 {
                // Locked out, a probe would wait as long as the flood lasts (its header and idle
                // timeouts are 600 s); a whole test run can keep this in-process server from
                // answering for over 30 s, so the probes wait up to 120 s.
                let asked = ContinuousClock.now
                let health = try await LoopbackConnection.request(port: port, "GET", "/health", source: Self.client, readTimeout: 120)
                #expect(health.hasPrefix("HTTP/1.1 200"), "\(health) after \(ContinuousClock.now - asked)")
                let write = try await LoopbackConnection.request(
                    port: port, "POST", "/register", body: Self.registration, source: Self.client, readTimeout: 120)
                #expect(write.hasPrefix("HTTP/1.1 20"), "\(write)")
            }
            withExtendedLifetime(held) {}
            await group.triggerGracefulShutdown()
        }
    }

    @Test("an address at its connection cap has further connections closed on opening; other addresses are not")
    func perAddressCap() async throws {
        try await GracefulShutdownTests.withServer(configure: { $0.maximumConnectionsPerAddress = 5 }) { port, _, group in
            // Five answered requests: the five are admitted before the sixth opens.
            let held = try (0..<5).map { _ in try LoopbackConnection(port: port, source: Self.flooder, readTimeout: 10) }
            for connection in held {
                try connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(await connection.readResponseHead().hasPrefix("HTTP/1.1 200"))
            }
            // The close comes at once; a loaded whole run (two cores, 16 tests at a time) once let
            // it take longer than 10 s to be seen, so the read waits up to a minute for it.
            let sixth = try LoopbackConnection(port: port, source: Self.flooder, readTimeout: 60)
            try? sixth.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            let refused = await sixth.readUntilClosed()
            #expect(refused.closed && refused.text.isEmpty, "\(refused)")
            let health = try await LoopbackConnection.request(port: port, "GET", "/health", source: Self.client)
            #expect(health.hasPrefix("HTTP/1.1 200"), "\(health)")
            withExtendedLifetime(held) {}
            await group.triggerGracefulShutdown()
        }
    }

    @Test("a connection whose request head is not complete within the header timeout is closed")
    func headerTimeout() async throws {
        try await GracefulShutdownTests.withServer(configure: { $0.headerTimeout = .seconds(1) }) { port, _, group in
            // The reads wait up to 120 s: a loaded test run can keep this in-process server from
            // running its timer for tens of seconds; a connection never closed still fails.
            let slow = try LoopbackConnection(port: port, source: Self.flooder, readTimeout: 120)
            try slow.send("GET /health HTTP/1.1\r\nHost: x\r\n")
            let outcome = await slow.readUntilClosed()
            #expect(outcome.closed && outcome.text.isEmpty, "\(outcome)")
            let silent = try LoopbackConnection(port: port, source: Self.flooder, readTimeout: 120)
            #expect(await silent.readUntilClosed().closed)
            await group.triggerGracefulShutdown()
        }
    }

    @Test("a kept-alive connection that sends nothing after its answer is closed at the idle timeout")
    func idleTimeout() async throws {
        try await GracefulShutdownTests.withServer(configure: { $0.idleTimeout = .seconds(1) }) { port, _, group in
            let connection = try LoopbackConnection(port: port, source: Self.client, readTimeout: 120)
            try connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            let outcome = await connection.readUntilClosed()
            #expect(outcome.closed && outcome.text.hasPrefix("HTTP/1.1 200"), "\(outcome)")
            await group.triggerGracefulShutdown()
        }
    }

    @Test("Connection: close and HTTP/1.0 without keep-alive: the connection is closed after the answer")
    func closeAfterAnswer() async throws {
        try await GracefulShutdownTests.withServer { port, _, group in
            for head in ["GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET /health HTTP/1.0\r\n\r\n"] {
                let connection = try LoopbackConnection(port: port, source: Self.client, readTimeout: 10)
                try connection.send(head)
                let outcome = await connection.readUntilClosed()
                #expect(outcome.closed, "\(head): \(outcome)")
                #expect(outcome.text.hasPrefix("HTTP/1.1 200") && outcome.text.lowercased().contains("connection: close"), "\(outcome)")
            }
            // HTTP/1.0 asking for keep-alive, and plain HTTP/1.1, stay open.
            let kept = try LoopbackConnection(port: port, source: Self.client, readTimeout: 2)
            try kept.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await kept.readUntilClosed().closed == false)
            await group.triggerGracefulShutdown()
        }
    }

    @Test(
        "a declared Content-Length over the body limit is answered 413 at once and the connection closed, the body unread; one too large for a 64-bit signed integer (but one the parser takes) too",
        arguments: ["1000000000", "9223372036854775808"])
    func oversizedDeclaredBody(length: String) async throws {
        try await GracefulShutdownTests.withServer { port, _, group in
            let connection = try LoopbackConnection(port: port, source: Self.client, readTimeout: 10)
            try connection.send("POST /register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n{")
            let outcome = await connection.readUntilClosed()
            #expect(outcome.closed, "\(outcome)")
            #expect(outcome.text.hasPrefix("HTTP/1.1 413"), "\(outcome)")
            #expect(outcome.text.contains(#""code":"payload_too_large""#), "\(outcome)")
            await group.triggerGracefulShutdown()
        }
    }

    @Test("a Content-Length is its digits; one past Int's range is Int.max; a sign or nothing is no length")
    func declaredLength() {
        #expect(ConnectionGuardHandler.declaredLength(" 12 ") == 12 && ConnectionGuardHandler.declaredLength("18446744073709551615") == .max)
        #expect(ConnectionGuardHandler.declaredLength("+12") == nil && ConnectionGuardHandler.declaredLength("") == nil)
    }

    @Test("a chunked body whose framing is broken is a JSON 400 invalid_body, not a 500")
    func brokenChunkedBody() async throws {
        try await GracefulShutdownTests.withServer { port, _, group in
            let connection = try LoopbackConnection(port: port, source: Self.client, readTimeout: 10)
            try connection.send(
                "POST /v1/devices/fafafafafafafafafafafafafafafafa/subscriptions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
            let outcome = await connection.readUntilClosed()
            #expect(outcome.text.hasPrefix("HTTP/1.1 400"), "\(outcome)")
            #expect(outcome.text.contains(#""code":"invalid_body""#), "\(outcome)")
            await group.triggerGracefulShutdown()
        }
    }
}
