import FrostboxPushEngine
import Testing

@Suite("Push retry policy")
struct PushRetryPolicyTests {
    @Test("FCM's backoff doubles from 500 ms, is capped, and jitters in its upper half")
    func backoff() {
        let policy = PushRetryPolicy.fcm
        #expect(policy.backoff(beforeRetry: 1, random: 0) == .milliseconds(250))
        #expect(policy.backoff(beforeRetry: 1, random: 1) == .milliseconds(500))
        #expect(policy.backoff(beforeRetry: 3, random: 1) == .seconds(2))
        #expect(policy.backoff(beforeRetry: 30, random: 1) == .seconds(10))
    }

    @Test("Retry-After is a floor, capped at the policy's ceiling")
    func retryAfter() {
        let policy = PushRetryPolicy.fcm
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(7), random: 0) == .seconds(7))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(3600), random: 0) == .seconds(60))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .zero, random: 1) == .milliseconds(500))
    }
}
