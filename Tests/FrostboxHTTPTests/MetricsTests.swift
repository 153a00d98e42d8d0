import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@Suite("Metrics")
struct MetricsTests {
    static let token = "0123456789abcdef0123456789abcdef"

    @Test("GET /metrics counts requests by route pattern, method and status, with a latency histogram")
    func httpMetrics() async throws {
        let harness = try OperationsHarness()
        try await harness.test { client in
            try await client.send(.put, "/v1/devices/\(Self.token)")
            try await client.send(.put, "/v1/devices/aaaaaaaaaaaaaaaaaaaa")
            try await client.send(.put, "/v1/devices/nothex")
            for i in 0..<5 { try await client.send(.get, "/random/\(i)") }
            try await client.send(.patch, "/v1/devices/\(Self.token)")
            let page = try await client.send(.get, "/metrics")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: page.body)
            #expect(text.contains(#"frostbox_http_requests_total{route="/v1/devices/{token}",method="PUT",status="201"} 2"#))
            #expect(text.contains(#"frostbox_http_requests_total{route="/v1/devices/{token}",method="PUT",status="400"} 1"#))
            #expect(text.contains(#"frostbox_http_requests_total{route="unmatched",method="GET",status="404"} 5"#))
            #expect(text.contains(#"frostbox_http_requests_total{route="unmatched",method="PATCH",status="405"} 1"#))
            #expect(text.contains(#"frostbox_http_request_duration_seconds_bucket{route="/v1/devices/{token}",method="PUT",status="201",le="+Inf"} 2"#))
            #expect(text.contains("# TYPE frostbox_http_request_duration_seconds histogram"))
            // Raw paths and tokens never become label values.
            #expect(!text.contains(Self.token))
            #expect(!text.contains("/random/"))
        }
    }

    @Test("with metrics.token, GET /metrics answers only the Bearer token: none, Basic or a wrong one get 401 and no figures")
    func protectedMetrics() async throws {
        let secret = "metrics-token-0123456789abcdef"
        let harness = try OperationsHarness { $0.metricsToken = AdminToken(secret) }
        try await harness.test { client in
            for headers in [HTTPFields(), StatusRoutesTests.basic("prometheus", secret), bearer("metrics-token-wrong-0123456789")] {
                let refused = try await client.send(.get, "/metrics", headers: headers)
                #expect(refused.status == .unauthorized)
                #expect(!String(buffer: refused.body).contains("frostbox_"))
            }
            let scraped = try await client.send(.get, "/metrics", headers: bearer(secret))
            #expect(scraped.status == .ok)
            #expect(String(buffer: scraped.body).contains("frostbox_"))
        }
        // Without a token it stays open, as Prometheus scrapes by default.
        let open = try OperationsHarness()
        try await open.test { client in
            let status = try await client.send(.get, "/metrics", headers: HTTPFields()).status
            #expect(status == .ok)
        }
    }

    @Test("an invented HTTP method is counted as other")
    func unknownMethod() async throws {
        let harness = try OperationsHarness()
        try await harness.test { client in
            try await client.send(HTTPRequest.Method("FROBNICATE")!, "/health")
        }
        #expect(harness.metricsText.contains(#"method="other""#))
        #expect(!harness.metricsText.contains("FROBNICATE"))
    }

    @Test("the push decorator counts outcomes, latency and the report totals; an apns-id seen again is not guessed to be a resend")
    func meteredPushSender() async throws {
        let telemetry = FrostboxTelemetry()
        let report = OperationsReport()
        let base = RecordingPushSender()
        let dead = try DeviceToken("ffeeddccbbaa99887766554433221100")
        base.script(dead, [.invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: nil)])
        let sender = MeteredPushSender(base, report: report, metrics: telemetry.factory)
        let frost = AlertContent(frost: FrostData(box: "60.20#25.00", night: "2026-11-21", level: "freeze", minimumC: -2))
        let first = PushNotification(token: try DeviceToken(Self.token), messageID: UUID().uuidString, content: frost)
        _ = await sender.send(first)
        // The same apns-id again: resends are counted by the notifier from the outbox entry's
        // attempts, not guessed here.
        _ = await sender.send(first)
        _ = await sender.send(PushNotification(token: dead, messageID: UUID().uuidString, content: frost))
        let text = String(decoding: telemetry.render(), as: UTF8.self)
        #expect(text.contains(#"frostbox_push_total{outcome="delivered",platform="ios"} 2"#))
        #expect(text.contains(#"frostbox_push_total{outcome="invalid-token",platform="ios"} 1"#))
        #expect(!text.contains("frostbox_push_resends_total 1"))
        // Alerts by level and class are the notifier's to count (it knows the outbox entry).
        #expect(!text.contains("frostbox_alerts_delivered_total"))
        #expect(text.contains(#"frostbox_push_duration_seconds_count 3"#))
        // No transport (the log-only sink): no transport gauges.
        #expect(!text.contains("frostbox_push_connections"))
        let totals = report.snapshot()
        #expect(totals.outcomesByPlatform == ["ios": ["delivered": 2, "invalid-token": 1]])
        #expect(totals.sent == 3)
        #expect(totals.confirmed == 2)
        #expect(totals.failed == 1)
        #expect(totals.resent == 0)
        #expect(totals.inFlight == 0)
    }

    @Test("a mixed batch is counted by platform: the push counter's platform label and the report's outcomes by platform")
    func byPlatform() async throws {
        let telemetry = FrostboxTelemetry()
        let report = OperationsReport()
        let sender = MeteredPushSender(RecordingPushSender(), report: report, metrics: telemetry.factory)
        let pushes = [
            PushNotification(token: try DeviceToken(Self.token), messageID: UUID().uuidString, content: AlertContent()),
            PushNotification(token: DeviceToken(trusted: "fcm:one"), platform: .android, messageID: UUID().uuidString, content: AlertContent()),
            PushNotification(token: DeviceToken(trusted: "fcm:two"), platform: .android, messageID: UUID().uuidString, content: AlertContent()),
        ]
        let outcomes = await sender.send(pushes).collect(into: 0) { count, _, _ in count += 1 }
        #expect(outcomes == 3)
        #expect(report.snapshot().outcomesByPlatform == ["ios": ["delivered": 1], "android": ["delivered": 2]])
        let text = String(decoding: telemetry.render(), as: UTF8.self)
        #expect(text.contains(#"frostbox_push_total{outcome="delivered",platform="android"} 2"#))
        #expect(text.contains(#"frostbox_push_total{outcome="delivered",platform="ios"} 1"#))
    }

    @Test("with the transports' gauges: connections and streams in flight by platform, and each paced app's quota, waits and pauses")
    func transportGauges() async throws {
        let telemetry = FrostboxTelemetry()
        let pacing = PushPacing(budget: "fcm.fi.example.frost", messagesPerMinute: 600_000, sent: 12, waitedSeconds: 1.5, pauses: 2, pausedForSeconds: 3)
        let sender = MeteredPushSender(
            RecordingPushSender(), report: OperationsReport(), metrics: telemetry.factory,
            transport: PushTransportGauges(
                connections: { ["ios": 2, "android": 1] }, streamsInFlight: { ["ios": 57, "android": 4] }, pacing: { [pacing] }))
        _ = await sender.send(PushNotification(token: try DeviceToken(Self.token), messageID: UUID().uuidString, content: AlertContent()))
        let text = String(decoding: telemetry.render(), as: UTF8.self)
        #expect(text.contains(#"frostbox_push_streams_in_flight{platform="ios"} 57"#))
        #expect(text.contains(#"frostbox_push_streams_in_flight{platform="android"} 4"#))
        #expect(text.contains(#"frostbox_push_connections{platform="ios"} 2"#))
        #expect(text.contains(#"frostbox_push_connections{platform="android"} 1"#))
        #expect(text.contains(#"frostbox_push_pacer_messages_per_minute{budget="fcm.fi.example.frost"} 600000"#))
        #expect(text.contains(#"frostbox_push_pacer_waited_seconds{budget="fcm.fi.example.frost"} 1.5"#))
        #expect(text.contains(#"frostbox_push_pacer_pauses{budget="fcm.fi.example.frost"} 2"#))
        #expect(text.contains(#"frostbox_push_pacer_paused_seconds{budget="fcm.fi.example.frost"} 3"#))
        #expect(!text.contains("frostbox_apns_"))
    }

    @Test("the forecast decorator counts requests, weight, boxes by source, failures by reason and quota left")
    func meteredForecastProvider() async throws {
        let telemetry = FrostboxTelemetry()
        let boxes = [GeoBox(latitudeIndex: 1_000, longitudeIndex: 2_000), GeoBox(latitudeIndex: 1_001, longitudeIndex: 2_000)]
        let base = FixedForecastProvider(
            batch: ForecastBatch(
                forecasts: [
                    boxes[0]: SourcedForecast(
                        forecast: BoxForecast(
                            box: boxes[0], timezone: "UTC", utcOffsetSeconds: 0, gridLatitude: 0, gridLongitude: 0, elevation: nil, fetchedAt: 0, hours: []),
                        source: .fetched)
                ],
                failures: [boxes[1]: .timeout], requestsMade: 2, weightUsed: 1.5))
        let provider = MeteredForecastProvider(base, metrics: telemetry.factory) { _ in
            QuotaUsage(lastMinute: 100, lastHour: 1_000, lastDay: 9_000, budgets: .openMeteoFree)
        }
        let batch = await provider.forecasts(for: boxes, now: 0)
        #expect(batch.requestsMade == 2)
        let text = String(decoding: telemetry.render(), as: UTF8.self)
        #expect(text.contains("frostbox_forecast_requests_total 2"))
        #expect(text.contains("frostbox_forecast_weight_total 1.5"))
        #expect(text.contains(#"frostbox_forecast_boxes_total{source="fetched"} 1"#))
        #expect(text.contains(#"frostbox_forecast_failures_total{reason="timeout"} 1"#))
        #expect(text.contains(#"frostbox_forecast_quota_left{window="day"} 1000"#))
        #expect(text.contains(#"frostbox_forecast_quota_left{window="minute"} 500"#))
    }

    @Test("the report line carries pool, queue, sent, resent, confirmed, failed and average confirm time, and the latest run with its status")
    func reportLine() async throws {
        let logs = RecordingLogHandler.Store()
        let report = OperationsReport()
        report.pushStarted()
        report.pushFinished(.delivered(messageID: "x"), after: .milliseconds(40))
        report.pushStarted()
        report.pushFinished(.delivered(messageID: "y"), after: .milliseconds(20))
        report.pushStarted()
        report.pushFinished(.temporaryFailure(reason: "503"), after: .milliseconds(5))
        report.resent(2)
        let service = OperationsReportService(
            report: report, logger: logs.logger(), poolSize: { 2 }, queueLength: { 17 }, lastRun: { "12 degraded" })
        await service.log()
        let line = try #require(logs.all.last)
        #expect(line.message == "report")
        let values = line.metadata.mapValues { "\($0)" }
        #expect(
            values == [
                "pool": "2", "queue": "17", "in_flight": "0", "sent": "3", "resent": "2", "confirmed": "2", "failed": "1",
                "avg_confirm_ms": "30.0", "last_run": "12 degraded",
            ])
    }
}

/// A forecast provider that answers one fixed batch.
struct FixedForecastProvider: ForecastProvider {
    let batch: ForecastBatch
    func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch { batch }
}
