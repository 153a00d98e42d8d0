import Foundation
import HTTPTypes
import Hummingbird

/// A JSON response with sorted keys.
struct JSONResponse<Value: Encodable>: ResponseGenerator {
    let status: HTTPResponse.Status
    let value: Value

    init(_ status: HTTPResponse.Status = .ok, _ value: Value) {
        self.status = status
        self.value = value
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder.frostbox.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
