import Foundation
import FrostboxCore
import FrostboxFCM
import Synchronization
import Testing

/// A token endpoint in memory: counts requests, hands out numbered tokens, can be held so
/// that requests pile up behind one refresh.
final class FakeTokenExchange: FCMTokenExchange {
    private let calls = Mutex(0)
    private let answer: Mutex<Result<FCMAccessGrant, FCMTokenFailure>?>
    private let gate: AsyncStream<Void>
    private let gateOpener: AsyncStream<Void>.Continuation
    private let held: Bool

    init(expiresIn: Int64 = 3600, held: Bool = false, failure: FCMTokenFailure? = nil) {
        answer = Mutex(failure.map { .failure($0) })
        (gate, gateOpener) = AsyncStream.makeStream(of: Void.self)
        self.held = held
        self.expiresIn = expiresIn
    }

    let expiresIn: Int64
    var count: Int { calls.withLock { $0 } }

    /// Lets held requests answer.
    func open() { gateOpener.finish() }

    func exchange(_ assertion: FCMAssertion, tokenURI: String) async -> Result<FCMAccessGrant, FCMTokenFailure> {
        let number = calls.withLock { calls in
            calls += 1
            return calls
        }
        if held {
            for await _ in gate {}
        }
        return answer.withLock { $0 } ?? .success(FCMAccessGrant(token: "token-\(number)-abcdefghijkl", expiresIn: expiresIn))
    }
}

@Suite("FCM access tokens")
struct FCMAccessTokenSourceTests {
    func source(_ exchange: FakeTokenExchange, clock: ManualClock) throws -> FCMAccessTokenSource {
        let mock = try FCMCredentialsTests.account()
        return FCMAccessTokenSource(account: try FCMServiceAccount(json: mock.json, source: "test"), exchange: exchange, clock: clock.closure)
    }

    @Test("a token is fetched once and reused until five minutes before it expires")
    func cachedUntilMargin() async throws {
        let clock = ManualClock()
        let exchange = FakeTokenExchange()
        let tokens = try source(exchange, clock: clock)
        let first = try await tokens.token().get()
        #expect(first.expiresAt == clock.now + 3600)
        clock.advance(seconds: 3600 - 301)
        #expect(try await tokens.token().get() == first)
        #expect(exchange.count == 1)
        clock.advance(seconds: 1)
        let second = try await tokens.token().get()
        #expect(second != first)
        #expect(exchange.count == 2)
    }

    @Test("a short-lived token is refreshed half-way through its life")
    func shortLived() async throws {
        let clock = ManualClock()
        let exchange = FakeTokenExchange(expiresIn: 120)
        let tokens = try source(exchange, clock: clock)
        _ = try await tokens.token().get()
        clock.advance(seconds: 59)
        _ = try await tokens.token().get()
        #expect(exchange.count == 1)
        clock.advance(seconds: 1)
        _ = try await tokens.token().get()
        #expect(exchange.count == 2)
    }

    @Test("many sends needing a token at once share one request")
    func oneRefreshInFlight() async throws {
        let clock = ManualClock()
        let exchange = FakeTokenExchange(held: true)
        let tokens = try source(exchange, clock: clock)
        let results = await withTaskGroup(of: FCMAccessToken?.self) { group in
            for _ in 0..<50 {
                group.addTask { try? await tokens.token().get() }
            }
            // Every task has asked (or will join the same refresh) before the endpoint answers.
            while exchange.count == 0 { await Task.yield() }
            try? await Task.sleep(for: .milliseconds(50))
            exchange.open()
            var all: [FCMAccessToken?] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(exchange.count == 1)
        #expect(Set(results.compactMap { $0 }).count == 1)
        #expect(results.allSatisfy { $0 != nil })
    }

    @Test("a rejected token is renewed once; a stale rejection gets the newer token")
    func renew() async throws {
        let clock = ManualClock()
        let exchange = FakeTokenExchange()
        let tokens = try source(exchange, clock: clock)
        let first = try await tokens.token().get()
        let second = try await tokens.renew(rejected: first).get()
        #expect(second != first)
        #expect(try await tokens.renew(rejected: first).get() == second)
        #expect(exchange.count == 2)
    }

    @Test("a refusal is passed on and nothing is cached")
    func refusal() async throws {
        let clock = ManualClock()
        let exchange = FakeTokenExchange(failure: .refused(reason: "invalid_grant"))
        let tokens = try source(exchange, clock: clock)
        #expect(await tokens.token() == .failure(.refused(reason: "invalid_grant")))
        #expect(await tokens.token() == .failure(.refused(reason: "invalid_grant")))
        #expect(exchange.count == 2)
    }
}
