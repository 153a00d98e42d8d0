import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Yams

@Suite("OpenAPI document")
struct OpenAPITests {
    /// `docs/openapi.yaml` of this checkout.
    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml")

    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]

    static func document() throws -> [String: Any] {
        let text = try String(contentsOf: documentURL, encoding: .utf8)
        return try #require(try Yams.load(yaml: text) as? [String: Any])
    }

    /// "METHOD /path" for every operation in the document.
    static func documentedRoutes(_ document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: Any])
        var routes = Set<String>()
        for (path, item) in paths {
            let operations = try #require(item as? [String: Any], "\(path)")
            for method in operations.keys where methods.contains(method) {
                routes.insert("\(method.uppercased()) \(path)")
            }
        }
        return routes
    }

    /// The full API: every optional part switched on.
    static func servedRoutes() throws -> Set<String> {
        let harness = try OperationsHarness { $0.adminToken = AdminToken(OperationsHarness.adminSecret) }
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        return Set(harness.api.registry.routes.map(\.description))
    }

    @Test("every served route is documented and every documented route is served")
    func routesMatch() throws {
        let documented = try Self.documentedRoutes(Self.document())
        let served = try Self.servedRoutes()
        #expect(!served.isEmpty)
        let undocumented = served.subtracting(documented).sorted()
        let phantom = documented.subtracting(served).sorted()
        #expect(undocumented.isEmpty, "served but missing from docs/openapi.yaml: \(undocumented)")
        #expect(phantom.isEmpty, "in docs/openapi.yaml but not served: \(phantom)")
    }

    @Test("the document's version is the binary's (`frostbox --version`), and it names both push platforms")
    func versionAndPlatforms() throws {
        let info = try #require(try Self.document()["info"] as? [String: Any])
        #expect(info["version"] as? String == FrostboxVersion.current)
        let description = try #require(info["description"] as? String)
        #expect(description.contains("APNs") && description.contains("FCM"), "\(description)")
    }

    @Test("the document is OpenAPI 3.1, every operation has a success response and an id, every $ref resolves")
    func wellFormed() throws {
        let document = try Self.document()
        #expect((document["openapi"] as? String)?.hasPrefix("3.1.") == true)
        let paths = try #require(document["paths"] as? [String: Any])
        var operationIDs = Set<String>()
        for (path, item) in paths {
            for (method, value) in try #require(item as? [String: Any]) where Self.methods.contains(method) {
                let operation = try #require(value as? [String: Any])
                let responses = try #require(operation["responses"] as? [String: Any], "\(method) \(path)")
                #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(method) \(path) has no 2xx response")
                let id = try #require(operation["operationId"] as? String, "\(method) \(path)")
                #expect(operationIDs.insert(id).inserted, "duplicate operationId \(id)")
                // Path parameters named in the template are declared.
                let names = path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
                let declared = ((item as? [String: Any])?["parameters"] as? [Any] ?? []) + (operation["parameters"] as? [Any] ?? [])
                for name in names {
                    let found = declared.contains { parameter in
                        guard let parameter = parameter as? [String: Any] else { return false }
                        if let ref = parameter["$ref"] as? String { return Self.resolve(ref, in: document)?["name"] as? String == name }
                        return parameter["name"] as? String == name
                    }
                    #expect(found, "\(method) \(path) does not declare path parameter \(name)")
                }
            }
        }
        var refs: [String] = []
        Self.collectRefs(document, into: &refs)
        #expect(!refs.isEmpty)
        for ref in Set(refs) {
            #expect(Self.resolve(ref, in: document) != nil, "unresolved \(ref)")
        }
    }

    @Test("GET /openapi.yaml serves docs/openapi.yaml byte for byte")
    func served() async throws {
        let harness = try OperationsHarness()
        let expected = try Data(contentsOf: Self.documentURL)
        try await harness.test { client in
            let response = try await client.send(.get, "/openapi.yaml")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(Data(response.body.readableBytesView) == expected)
        }
    }

    static func collectRefs(_ value: Any, into refs: inout [String]) {
        if let object = value as? [String: Any] {
            for (key, child) in object {
                if key == "$ref", let ref = child as? String { refs.append(ref) } else { collectRefs(child, into: &refs) }
            }
        } else if let array = value as? [Any] {
            for child in array { collectRefs(child, into: &refs) }
        }
    }

    static func resolve(_ ref: String, in document: [String: Any]) -> [String: Any]? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any = document
        for part in ref.dropFirst(2).split(separator: "/") {
            guard let object = node as? [String: Any], let next = object[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }
}
