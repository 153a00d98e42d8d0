import Foundation
import NIOCore
import NIOHPACK

/// Judges one request as APNs would. Pure apart from the shared flaky-fault memory and the
/// token verifier's cache.
struct MockAPNsValidator: Sendable {
    /// What to do with a request.
    enum Answer: Sendable {
        case accept(MockAPNsDelivery)
        case reject(status: Int, reason: String, timestamp: Int64?)
        /// Close the connection without answering.
        case reset
        /// Reset the stream (INTERNAL_ERROR) without answering.
        case resetStream
    }

    /// How the connection authenticated.
    struct ConnectionAuth: Sendable {
        /// Topics of the verified client certificate, or nil for a token-auth connection.
        var certificateTopics: Set<String>?
    }

    static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk",
        "widgets", "controls",
    ]
    static let maximumPayloadSize = 4096

    let configuration: MockAPNsSettings
    let verifier: MockAPNsTokenVerifier
    let state: MockAPNsState

    func judge(
        headers: HPACKHeaders, body: ByteBuffer, bodySize: Int, auth: ConnectionAuth, connection: Int, stream: Int
    ) -> Answer {
        for name in ["apns-topic", "apns-push-type", "apns-priority", "apns-id", "apns-expiration", "apns-collapse-id", "authorization"]
        where headers[name].count > 1 {
            return reject(400, "DuplicateHeaders")
        }
        guard headers.first(name: ":method") == "POST" else { return reject(405, "MethodNotAllowed") }
        guard let path = headers.first(name: ":path") else { return reject(404, "BadPath") }
        let pathOnly = path.split(separator: "?", maxSplits: 1).first ?? ""
        guard pathOnly.hasPrefix("/3/device/") else { return reject(404, "BadPath") }
        let token = pathOnly.dropFirst("/3/device/".count)
        guard !token.isEmpty else { return reject(400, "MissingDeviceToken") }
        guard token.utf8.count % 2 == 0, (16...200).contains(token.utf8.count),
            token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) })
        else { return reject(400, "BadDeviceToken") }

        // Authentication.
        let now = configuration.clock()
        var keyID: String?
        var issuedAt: Int64?
        let topic = headers.first(name: "apns-topic")
        if let certificateTopics = auth.certificateTopics {
            if let topic, !certificateTopics.contains(topic) { return reject(400, "TopicDisallowed") }
        } else if configuration.requireAuthentication {
            switch verifier.verify(authorization: headers.first(name: "authorization"), now: now, connection: connection) {
            case .failure(.missing): return reject(403, "MissingProviderToken")
            case .failure(.invalid): return reject(403, "InvalidProviderToken")
            case .failure(.expired): return reject(403, "ExpiredProviderToken")
            case .failure(.tooManyUpdates): return reject(429, "TooManyProviderTokenUpdates")
            case .success(let verified):
                keyID = verified.keyID
                issuedAt = verified.issuedAt
            }
        }

        // Headers.
        guard let topic, !topic.isEmpty else { return reject(400, "MissingTopic") }
        if !configuration.topics.isEmpty, !configuration.topics.contains(topic) { return reject(400, "TopicDisallowed") }
        let pushType = headers.first(name: "apns-push-type") ?? "alert"
        guard Self.pushTypes.contains(pushType) else { return reject(400, "InvalidPushType") }
        var priority = 10
        if let text = headers.first(name: "apns-priority") {
            guard let value = Int(text), [1, 5, 10].contains(value) else { return reject(400, "BadPriority") }
            priority = value
        }
        if pushType == "background" && priority == 10 { return reject(400, "BadPriority") }
        var expiration: Int64?
        if let text = headers.first(name: "apns-expiration") {
            guard let value = Int64(text), value >= 0 else { return reject(400, "BadExpirationDate") }
            expiration = value
        }
        let collapseID = headers.first(name: "apns-collapse-id")
        if let collapseID, collapseID.utf8.count > 64 { return reject(400, "BadCollapseId") }
        var messageID = UUID().uuidString.lowercased()
        if let text = headers.first(name: "apns-id") {
            guard UUID(uuidString: text) != nil else { return reject(400, "BadMessageId") }
            messageID = text
        }

        // Payload.
        guard bodySize <= Self.maximumPayloadSize else { return reject(413, "PayloadTooLarge") }
        guard bodySize > 0 else { return reject(400, "PayloadEmpty") }
        let payload = Data(body.readableBytesView)
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any], object["aps"] is [String: Any] else {
            return reject(400, "BadPayload")
        }

        if let known = configuration.knownTokens, !known.contains(token.lowercased()) { return reject(400, "BadDeviceToken") }

        // Faults by token prefix, then by rate.
        switch MockAPNsTokenFault.of(token: token) {
        case .badDeviceToken: return reject(400, "BadDeviceToken")
        case .notForTopic: return reject(400, "DeviceTokenNotForTopic")
        case .forbidden: return reject(403, "Forbidden")
        case .unregistered: return reject(410, "Unregistered", timestamp: now * 1000)
        case .payloadTooLarge: return reject(413, "PayloadTooLarge")
        case .tooManyRequests: return reject(429, "TooManyRequests")
        case .internalServerError: return reject(500, "InternalServerError")
        case .serviceUnavailable: return reject(503, "ServiceUnavailable")
        case .flaky:
            if state.firstFlakyAttempt(messageID) { return reject(503, "ServiceUnavailable") }
        case .connectionReset: return .reset
        case .streamReset:
            if state.firstFlakyAttempt(messageID) { return .resetStream }
        case nil: break
        }
        if configuration.faultRate > 0, Double.random(in: 0..<1) < configuration.faultRate {
            switch configuration.rateFaultStatus {
            case 429: return reject(429, "TooManyRequests")
            case 500: return reject(500, "InternalServerError")
            default: return reject(503, "ServiceUnavailable")
            }
        }

        return .accept(
            MockAPNsDelivery(
                messageID: messageID, token: String(token).lowercased(), topic: topic, pushType: pushType, priority: priority,
                expiration: expiration, collapseID: collapseID, payload: String(decoding: payload, as: UTF8.self),
                keyID: keyID, tokenIssuedAt: issuedAt, certificateAuth: auth.certificateTopics != nil,
                connection: connection, stream: stream))
    }

    private func reject(_ status: Int, _ reason: String, timestamp: Int64? = nil) -> Answer {
        .reject(status: status, reason: reason, timestamp: timestamp)
    }
}
