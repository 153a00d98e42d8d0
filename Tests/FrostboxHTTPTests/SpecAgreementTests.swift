import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Testing

/// Answers the OpenAPI document promises, where the server once said otherwise (issue #28);
/// the schemathesis run in .ci/run checks every operation against the document.
@Suite("Spec agreement")
struct SpecAgreementTests {
    @Test("a subscription at latitude and longitude -0 is echoed as 0, as it is read back")
    func negativeZeroEcho() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let token = "0123456789abcdef0123456789abcdef"
            let body = #"{"token": "\#(token)", "location": {"latitude": -0, "longitude": "-0.0", "name": "Null Island"}}"#
            let created = try await client.send(.post, "/add_location", json: body)
            #expect(created.status == .created)
            let text = String(buffer: created.body)
            #expect(!text.contains("-0"), "\(text)")
            let listed = try await client.send(.get, "/v1/devices/\(token)/subscriptions")
            #expect(!String(buffer: listed.body).contains("-0"))
        }
    }

}
