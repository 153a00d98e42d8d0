import Foundation
import HTTPTypes
import Hummingbird

/// A JSON response with sorted keys.
struct JSONResponse<Value: Encodable>: ResponseGenerator {
    let status: HTTPResponse.Status
    let value: Value
    /// `Cache-Control`, when the answer must not be kept (device data); nil sends none.
    var cacheControl: String?

    init(_ status: HTTPResponse.Status = .ok, _ value: Value) {
        self.status = status
        self.value = value
    }

    /// An answer about one device (its token, its places): kept by no cache, shared or private.
    static func deviceData(_ status: HTTPResponse.Status = .ok, _ value: Value) -> JSONResponse {
        var response = JSONResponse(status, value)
        response.cacheControl = "no-store"
        return response
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder.frostbox.encode(value)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let cacheControl { headers[.cacheControl] = cacheControl }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
