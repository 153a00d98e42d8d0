import FrostboxHTTP
import Testing

@Suite("Route registry")
struct RouteRegistryTests {
    @Test("each router gets a registry of its own; making more routers never adds a route twice")
    func registryDoesNotGrow() async throws {
        let api = RouteTestHarness.inMemory().api
        let first = api.makeRouterAndRegistry()
        let routes = first.registry.routes
        #expect(routes.contains { $0.description == "POST /register" })
        #expect(Set(routes).count == routes.count)
        let second = api.makeRouterAndRegistry()
        _ = api.makeRouter()
        _ = api.makeRouter()
        #expect(first.registry.routes == routes)
        #expect(second.registry.routes == routes)
        #expect(api.registry.routes == routes)
    }
}
