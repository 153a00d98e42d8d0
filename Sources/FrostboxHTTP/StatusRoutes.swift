import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird
import NIOCore

/// The status page: `GET /status` (HTML) with its scripts, style and shapes under
/// `/status/{file}`, and the admin JSON it reads (`/admin/status/summary`,
/// `/admin/status/boxes`, `/admin/status/boxes/{key}`). Registered only when an admin token
/// is configured; the page and the JSON need the token (Basic from a browser, or Bearer),
/// the static files carry no data and need none.
public struct StatusRoutes: Sendable {
    /// What the status page reads; the composition root wires each part.
    public struct Operations: Sendable {
        /// Runs, quota, outbox, APNs and places for `GET /admin/status/summary`.
        public var summary: @Sendable () async throws -> StatusSummary
        /// The boxes in a viewport for `GET /admin/status/boxes`.
        public var boxes: @Sendable (BoxMapViewport) async throws -> StatusBoxMap
        /// One box with its nights and chances for `GET /admin/status/boxes/{key}`; nil when no
        /// subscription is in the box.
        public var box: @Sendable (GeoBox) async throws -> StatusBoxDetail?

        public init(
            summary: @escaping @Sendable () async throws -> StatusSummary,
            boxes: @escaping @Sendable (BoxMapViewport) async throws -> StatusBoxMap,
            box: @escaping @Sendable (GeoBox) async throws -> StatusBoxDetail?
        ) {
            self.summary = summary
            self.boxes = boxes
            self.box = box
        }
    }

    let authorization: AdminAuthorization
    let operations: Operations

    public init(token: AdminToken, operations: Operations) {
        authorization = AdminAuthorization(token: token)
        self.operations = operations
    }

    public func add(to routes: RouteBuilder) {
        routes.on(.get, "/status") { request, context in
            try authorization.check(request, context, challenge: .basic)
            return StatusAssets.page.response(to: request)
        }
        routes.on(.get, "/status/{file}") { request, context in
            guard let name = context.parameters.get("file"), let asset = StatusAssets.files[name] else {
                throw APIError.notFound("no such status page file")
            }
            return asset.response(to: request)
        }
        // A Basic challenge here too: the page's requests then reuse the browser's login.
        routes.on(.get, "/admin/status/summary") { request, context in
            try authorization.check(request, context, challenge: .basic)
            return StatusJSON(try await operations.summary())
        }
        routes.on(.get, "/admin/status/boxes") { request, context in
            try authorization.check(request, context, challenge: .basic)
            let parameters = request.uri.queryParameters
            let viewport = try Self.viewport { parameters[Substring($0)].map(String.init) }
            return StatusJSON(try await operations.boxes(viewport))
        }
        routes.on(.get, "/admin/status/boxes/{key}") { request, context in
            try authorization.check(request, context, challenge: .basic)
            guard let raw = context.parameters.get("key"), let key = Int64(raw), let box = GeoBox(key: key) else {
                throw APIError.badRequest(.invalidField, "key must be a box key, as the map's boxes list it (an integer)")
            }
            guard let detail = try await operations.box(box) else {
                throw APIError.notFound("no subscription in box \(box)")
            }
            return StatusJSON(detail)
        }
    }

    /// The viewport named by `west`, `south`, `east`, `north` and `zoom` (each optional:
    /// the whole world at zoom 0); a malformed, empty or out-of-range value is a 400.
    static func viewport(_ parameter: (String) -> String?) throws(APIError) -> BoxMapViewport {
        func number(_ name: String, _ fallback: Double) throws(APIError) -> Double {
            // An empty value (`east=`) is no number: a 400 like any other, as the document says.
            guard let raw = parameter(name) else { return fallback }
            guard let value = Double(raw), value.isFinite else {
                throw APIError.badRequest(.invalidField, "\(name) must be a number")
            }
            return value
        }
        let world = BoxMapViewport.world
        let zoom: Int
        if let raw = parameter("zoom") {
            guard let value = Int(raw) else { throw APIError.badRequest(.invalidField, "zoom must be an integer within 0…\(BoxMapViewport.maximumZoom)") }
            zoom = value
        } else {
            zoom = 0
        }
        let west = try number("west", world.west), south = try number("south", world.south)
        let east = try number("east", world.east), north = try number("north", world.north)
        do throws(ValidationError) {
            return try BoxMapViewport(west: west, south: south, east: east, north: north, zoom: zoom)
        } catch {
            throw APIError(error)
        }
    }
}

/// JSON of the status routes: sorted snake_case keys, never cached.
struct StatusJSON<Value: Encodable>: ResponseGenerator {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder.frostbox
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let data = try encoder.encode(value)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The status page's files, compiled into the binary (`Sources/FrostboxHTTP/StatusPage`).
enum StatusAssets {
    /// One served file with its type and validator.
    struct Asset: Sendable {
        let bytes: [UInt8]
        let contentType: String
        let cacheControl: String
        /// A strong validator over the bytes, so a reload costs a 304.
        let etag: String

        /// More headers (the page's Content-Security-Policy).
        let extraHeaders: HTTPFields

        init(_ bytes: [UInt8], contentType: String, cacheControl: String = "no-cache", extraHeaders: HTTPFields = [:]) {
            self.bytes = bytes
            self.contentType = contentType
            self.cacheControl = cacheControl
            self.extraHeaders = extraHeaders
            // FNV-1a: not for security, only to tell one build's file from another's.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            etag = "\"\(String(hash, radix: 16))\""
        }

        func response(to request: Request) -> Response {
            var headers: HTTPFields = [.contentType: contentType, .cacheControl: cacheControl, .eTag: etag]
            headers[.xContentTypeOptions] = "nosniff"
            headers.append(contentsOf: extraHeaders)
            if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
                return Response(status: .notModified, headers: headers)
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }

    /// The page itself: behind the token, so kept out of shared caches; its own files only
    /// (no inline or foreign script, no foreign connection), and never inside another site's
    /// frame. Inline style attributes stay allowed: the page draws its legend and bars with them.
    static let page = Asset(
        PackageResources.status_html, contentType: "text/html; charset=utf-8", cacheControl: "private, no-cache",
        extraHeaders: [
            .contentSecurityPolicy: pageSecurityPolicy,
            HTTPField.Name("X-Frame-Options")!: "DENY",
        ])

    static let pageSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The files under `/status/{file}`.
    static let files: [String: Asset] = [
        "status.css": Asset(PackageResources.status_css, contentType: "text/css; charset=utf-8"),
        "status.js": Asset(PackageResources.status_js, contentType: "text/javascript; charset=utf-8"),
        "favicon.svg": Asset(PackageResources.favicon_svg, contentType: "image/svg+xml"),
        "land.json": Asset(PackageResources.land_json, contentType: "application/json; charset=utf-8"),
    ]
}
