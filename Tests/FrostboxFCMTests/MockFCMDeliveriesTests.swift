import AsyncHTTPClient
import Foundation
import FrostboxCore
import MockFCM
import NIOCore
import NIOSSL
import Testing

/// mock-fcm, like mock-apns, writes what it accepted to a JSON-lines file (`--deliveries`) and
/// answers its counters (`GET /admin/counters`), so a run against the executable can be checked.
@Suite("mock-fcm deliveries file and counters")
struct MockFCMDeliveriesTests {
    @Test("accepted messages are appended to the deliveries file, one JSON line each; refusals are not")
    func deliveriesFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-fcm-deliveries-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("deliveries.jsonl").path
        try await FCMHarness.with({ $0.deliveriesPath = path }) { harness in
            let router = try harness.router()
            let batch = [
                alert(token: "good-token-1", messageID: "m1"), alert(token: "UNREG-token", messageID: "m2"),
                alert(token: "good-token-2", messageID: "m3"),
            ]
            _ = await collect(router.send(batch))
            await router.shutdown()

            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 2)
            let decoded = try lines.map { try JSONDecoder().decode(MockFCMDelivery.self, from: Data($0.utf8)) }
            #expect(Set(decoded.map(\.alertID)) == ["m1", "m3"])
            #expect(Set(decoded.map(\.token)) == ["good-token-1", "good-token-2"])

            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(harness.mock.certificatePath)
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
            do {
                let response = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(harness.port)/admin/counters"), timeout: .seconds(60))
                #expect(response.status == .ok)
                let body = try await response.body.collect(upTo: 1 << 20)
                let counters = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
                #expect(counters?["delivered"] as? Int == 2)
                #expect(counters?["send_requests"] as? Int == 3)
                #expect((counters?["rejected"] as? [String: Int])?["UNREGISTERED"] == 1)
                #expect(counters?["token_requests"] as? Int == 1)
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
}
