import PostgresNIO

extension PostgresRowSequence {
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
