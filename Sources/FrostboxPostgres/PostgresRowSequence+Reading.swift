import PostgresNIO

/// A statement's rows, read to the end while its connection was leased (so that no row stream
/// outlives the lease: see `PostgresDatabase.query`). An `AsyncSequence` of `PostgresRow`, so
/// postgres-nio's `decode` works on it as on the driver's own row sequence.
struct PostgresRows: AsyncSequence, Sendable {
    typealias Element = PostgresRow
    let rows: [PostgresRow]

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[PostgresRow]>
        mutating func next() async throws -> PostgresRow? { base.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: rows.makeIterator()) }
}

extension AsyncSequence where Element == PostgresRow {
    /// How many rows the query returned (read to the end).
    func collectCount() async throws -> Int {
        var count = 0
        for try await _ in self { count += 1 }
        return count
    }

    /// The first column of the first row, or nil when there is none.
    func single<T: PostgresDecodable & Sendable>(_ type: T.Type) async throws -> T? {
        var result: T?
        for try await value in self.decode(T.self) where result == nil { result = value }
        return result
    }
}
