import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /metrics` (Prometheus text exposition) and `GET /openapi.yaml` (the API description).
/// Both take their content from the composition root, so this module needs no metrics backend.
public struct OperationsRoutes: Sendable {
    /// Renders every metric in the Prometheus text format.
    let renderMetrics: @Sendable () -> [UInt8]
    /// The OpenAPI document, as served.
    let openAPIDocument: [UInt8]
    /// The bearer token `/metrics` asks for; nil leaves it open.
    let metricsToken: AdminToken?

    public init(renderMetrics: @escaping @Sendable () -> [UInt8], openAPIDocument: [UInt8] = OpenAPIDocument.bytes, metricsToken: AdminToken? = nil) {
        self.renderMetrics = renderMetrics
        self.openAPIDocument = openAPIDocument
        self.metricsToken = metricsToken
    }

    public func add(to routes: RouteBuilder) {
        let metricsToken = metricsToken
        routes.on(.get, "/metrics") { request, context in
            if let metricsToken {
                try AdminAuthorization(token: metricsToken).check(
                    request, context, bearerOnly: true, refusal: "/metrics needs the metrics token as Authorization: Bearer")
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: renderMetrics())))
        }
        let document = openAPIDocument
        routes.on(.get, "/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: document)))
        }
    }
}

/// The OpenAPI 3.1 document of the public API (`docs/openapi.yaml`, compiled into the binary).
public enum OpenAPIDocument {
    /// The document's bytes.
    public static var bytes: [UInt8] { PackageResources.openapi_yaml }
}
