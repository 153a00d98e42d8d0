import NIOHPACK

/// The header of an answer that a platform's verdict reads (lower case): the same for every
/// answer, or one for a success (2xx) and another for the rest. Web Push reads `TTL` from a
/// 201 and `Retry-After` from a 429 or 5xx, and never takes one for the other.
package struct HTTP2AnswerHeader: Sendable {
    let success: String?
    let failure: String?

    /// No header is kept.
    package static let none = HTTP2AnswerHeader(success: nil, failure: nil)

    /// `name`, whatever the status (APNs: `apns-id`; FCM: `retry-after`).
    package static func named(_ name: String) -> HTTP2AnswerHeader { HTTP2AnswerHeader(success: name, failure: name) }

    /// `success` from a 2xx answer, `failure` from any other.
    package static func byStatus(success: String, failure: String) -> HTTP2AnswerHeader { HTTP2AnswerHeader(success: success, failure: failure) }

    /// The kept header's value in the answer headers `fields` of status `status`.
    package func value(status: Int?, in fields: HPACKHeaders) -> String? {
        guard let status, let name = (200...299).contains(status) ? success : failure else { return nil }
        return fields.first(name: name)
    }
}
