import FrostboxCore
import FrostboxPostgres
import FrostboxPushEngine
import Testing

/// The push budget: in the process, and on PostgreSQL (shared by a cluster's instances).
enum PushBudgetImplementation: String, ContractImplementation {
    case local, postgres

    /// Two instances' views of one budget: the same store in one process; two pools on one
    /// database for PostgreSQL, as two instances of a cluster have.
    func makePair() async throws -> (any PushBudgetStore, any PushBudgetStore) {
        switch self {
        case .local:
            let budget = LocalPushBudget()
            return (budget, budget)
        case .postgres:
            let first = try await ContractPostgres.freshDatabase()
            let second = try await ContractPostgres.database(named: first.settings.database)
            return (PostgresPushBudget(database: first), PostgresPushBudget(database: second))
        }
    }
}

@Suite("PushBudgetStore contract: a window's budget is never granted twice", .backgroundWorkScoped)
struct PushBudgetContract {
    static let window: Int64 = 1_800_000_000

    @Test("takes are granted up to the window's limit, then nothing; the next window starts afresh", arguments: PushBudgetImplementation.available)
    func limit(_ implementation: PushBudgetImplementation) async throws {
        let (budget, _) = try await implementation.makePair()
        #expect(try await budget.take(key: "fcm.a", window: Self.window, count: 6, limit: 10) == 6)
        #expect(try await budget.take(key: "fcm.a", window: Self.window, count: 6, limit: 10) == 4)
        #expect(try await budget.take(key: "fcm.a", window: Self.window, count: 1, limit: 10) == 0)
        #expect(try await budget.take(key: "fcm.a", window: Self.window + 1, count: 12, limit: 10) == 10)
        // Another key has its own budget.
        #expect(try await budget.take(key: "fcm.b", window: Self.window + 1, count: 3, limit: 10) == 3)
    }

    @Test("two instances taking at once share one budget: 16 takes of 25 against 150 grant exactly 150", arguments: PushBudgetImplementation.available)
    func shared(_ implementation: PushBudgetImplementation) async throws {
        let (first, second) = try await implementation.makePair()
        let granted = try await withThrowingTaskGroup(of: Int.self) { group in
            // Each instance alone would take 200: more than the window's budget.
            for index in 0..<16 {
                let budget = index.isMultiple(of: 2) ? first : second
                group.addTask { try await budget.take(key: "fcm.shared", window: Self.window, count: 25, limit: 150) }
            }
            return try await group.reduce(0, +)
        }
        #expect(granted == 150)
        #expect(try await second.take(key: "fcm.shared", window: Self.window, count: 1, limit: 150) == 0)
    }
}
