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

    @Test("a Retry-After header is read as delay-seconds or as an HTTP date in any of its three forms; garbage is nil")
    func retryAfterHeader() {
        let now: Int64 = 784_111_717  // Sun, 06 Nov 1994 08:48:37 GMT, a minute before RFC 9110's example date
        #expect(PushRetryPolicy.retryAfter(" 120 ", now: now) == .seconds(120))
        for date in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(PushRetryPolicy.retryAfter(date, now: now) == .seconds(60), "\(date)")
        }
        #expect(PushRetryPolicy.retryAfter("Tue, 29 Feb 2028 00:00:00 GMT", now: 1_835_395_200 - 5) == .seconds(5), "a leap day")
        #expect(PushRetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now + 3_600) == .zero, "a date passed: no delay")
        for garbage in ["-5", "soon", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", ""] {
            #expect(PushRetryPolicy.retryAfter(garbage, now: now) == nil, "\(garbage)")
        }
    }
}
