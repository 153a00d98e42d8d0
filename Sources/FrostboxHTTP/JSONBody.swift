import Foundation
import FrostboxCore
import Hummingbird

/// A request body type, with the fields it may carry (`JSONFields`).
protocol RequestBody: Decodable {
    /// Its members and theirs; `.any` takes any (the legacy bodies).
    static var fields: JSONFields { get }
}

extension JSONFields {
    /// The members a `CodingKeys` enum names; `nested` gives an object member's own.
    static func keys<Key: CodingKey & CaseIterable>(_: Key.Type, nested: [String: JSONFields] = [:]) -> JSONFields {
        .object(Dictionary(uniqueKeysWithValues: Key.allCases.map { ($0.stringValue, nested[$0.stringValue] ?? .any) }))
    }
}

/// Reading request bodies: size-capped, JSON, with decoding failures turned into clear 400s
/// that name the field at fault. A key sent twice is refused, and so is a member the body
/// type does not read (but on the legacy routes, whose bodies declare `.any`).
enum JSONBody {
    /// Decodes a required body as `T`; an empty body is a 400 (`missing_body`).
    static func decode<T: RequestBody>(_ type: T.Type, from request: Request, context: FrostboxRequestContext) async throws -> T {
        guard let body = try await decodeIfPresent(type, from: request, context: context) else {
            throw APIError.badBody(.missingBody, "request body must be a JSON object")
        }
        return body
    }

    /// Decodes an optional body as `T`; an empty (or all-whitespace) body is `nil`.
    static func decodeIfPresent<T: RequestBody>(_ type: T.Type, from request: Request, context: FrostboxRequestContext) async throws -> T? {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch let error as any HTTPResponseError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The body's framing is broken (a chunk size that is not hex, a chunk cut short):
            // the HTTP parser's error, none of the body readable.
            throw APIError.badBody(.invalidBody, "request body could not be read: its framing is malformed")
        }
        if buffer.readableBytes == 0 || buffer.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return nil
        }
        return try decode(type, from: Data(buffer.readableBytesView))
    }

    static func decode<T: RequestBody>(_ type: T.Type, from data: Data) throws -> T {
        if let problem = T.fields.problem(in: data) { throw problem.apiError }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as ValidationError {
            throw APIError(error)
        } catch let error as DecodingError {
            throw translate(error)
        } catch {
            throw APIError.badBody(.malformedJSON, "request body is not valid JSON")
        }
    }

    static func translate(_ error: DecodingError) -> APIError {
        switch error {
        case .keyNotFound(let key, let context):
            let path = fieldPath(context.codingPath + [key])
            return .badRequest(.missingField, "field '\(path)' is required")
        case .valueNotFound(_, let context):
            return .badRequest(.missingField, "field '\(fieldPath(context.codingPath))' must not be null")
        case .typeMismatch(let type, let context):
            if context.codingPath.isEmpty {
                return .badBody(.invalidBody, "request body must be a JSON object")
            }
            return .badRequest(.invalidField, "field '\(fieldPath(context.codingPath))' must be \(describe(type))")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .badBody(.malformedJSON, "request body is not valid JSON")
            }
            return .badRequest(.invalidField, "field '\(fieldPath(context.codingPath))' is invalid")
        @unknown default:
            return .badBody(.malformedJSON, "request body could not be read")
        }
    }

    static func fieldPath(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Double.Type, is Int.Type, is Int64.Type: "a number"
        case is [String: Any].Type: "an object"
        case is [Any].Type: "an array"
        default: "of another type"
        }
    }
}

/// A number the app may send as a JSON number or as a JSON string ("60.17").
struct FlexibleNumber: Decodable, Sendable {
    let value: Double

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            throw DecodingError.valueNotFound(Double.self, .init(codingPath: decoder.codingPath, debugDescription: "null"))
        }
        if let number = try? container.decode(Double.self) {
            value = number
            return
        }
        guard let text = try? container.decode(String.self) else {
            throw DecodingError.typeMismatch(Double.self, .init(codingPath: decoder.codingPath, debugDescription: "number"))
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let allowed = Set("0123456789+-.eE")
        guard !trimmed.isEmpty, trimmed.allSatisfy(allowed.contains), let number = Double(trimmed) else {
            let field = decoder.codingPath.last?.stringValue ?? "value"
            throw ValidationError(.invalidCoordinate, field: field, "\(field) must be a decimal number")
        }
        value = number
    }
}
