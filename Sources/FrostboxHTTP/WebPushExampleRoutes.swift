import HTTPTypes
import Hummingbird

/// Frostbox's example web client (`Sources/FrostboxHTTP/WebPushExample`, plain files compiled
/// into the binary), at `/web-push`: a page and a service worker that subscribe a browser,
/// register it with this server and show its alerts. Same origin as the API, so it needs no
/// CORS; a site of its own copies the three files and calls the API of its server.
public struct WebPushExampleRoutes: Sendable {
    public init() {}

    public func add(to routes: RouteBuilder) {
        routes.on(.get, "/web-push") { request, _ in WebPushExampleAssets.page.response(to: request) }
        routes.on(.get, "/web-push/{file}") { request, context in
            guard let name = context.parameters.get("file"), let asset = WebPushExampleAssets.files[name] else {
                throw APIError.notFound("no such example file")
            }
            return asset.response(to: request)
        }
    }
}

/// The example's files.
enum WebPushExampleAssets {
    /// Its own files only, and a service worker of its own origin.
    static let page = StatusAssets.Asset(
        PackageResources.index_html, contentType: "text/html; charset=utf-8",
        extraHeaders: [
            .contentSecurityPolicy:
                "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; worker-src 'self'; img-src 'self'; "
                + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ])

    static let files: [String: StatusAssets.Asset] = [
        "app.js": StatusAssets.Asset(PackageResources.app_js, contentType: "text/javascript; charset=utf-8"),
        // Its scope is the page's path, /web-push, one above the script's own folder.
        "sw.js": StatusAssets.Asset(
            PackageResources.sw_js, contentType: "text/javascript; charset=utf-8",
            extraHeaders: [HTTPField.Name("Service-Worker-Allowed")!: "/web-push"]),
        "example.css": StatusAssets.Asset(PackageResources.example_css, contentType: "text/css; charset=utf-8"),
    ]
}
