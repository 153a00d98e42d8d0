/// Which connections the server keeps: a cap per client address and a global cap that gives
/// way from the heaviest client first. No I/O: `ConnectionRegistry` feeds it opened and closed
/// connections and carries out its decisions.
///
/// At the global cap, a newcomer from a lighter client displaces the oldest connection of the
/// client holding the most, so one address flooding the server cannot lock others out; a
/// newcomer from the heaviest client (or one about as heavy) is refused.
public struct ConnectionAdmission: Sendable {
    /// Identifies one connection; the registry hands out increasing numbers, so a smaller one
    /// is an older connection.
    public typealias ID = UInt64

    /// What to do with a connection that has just opened.
    public enum Decision: Sendable, Equatable {
        /// Keep it.
        case admit
        /// Keep it and close `evicting`, the oldest connection of the heaviest client.
        case admitEvicting(ID)
        /// Close it at once.
        case refuse(Refusal)
    }

    /// Why a connection was refused.
    public enum Refusal: String, Sendable, Equatable {
        /// Its address already holds `maximumPerAddress` connections.
        case addressFull = "address_full"
        /// The server is at its cap and this client is among the heaviest.
        case serverFull = "server_full"
    }

    public let maximumTotal: Int
    /// 0: no cap per address.
    public let maximumPerAddress: Int
    /// Open connections by client address, oldest first.
    private var byAddress: [String: [ID]] = [:]
    private var addressOf: [ID: String] = [:]

    public init(maximumTotal: Int, maximumPerAddress: Int) {
        self.maximumTotal = max(1, maximumTotal)
        self.maximumPerAddress = max(0, maximumPerAddress)
    }

    /// Connections open now.
    public var total: Int { addressOf.count }

    /// Connections `address` holds now.
    public func count(of address: String) -> Int { byAddress[address]?.count ?? 0 }

    /// Decides on connection `id` from `address` and records it unless refused. An evicted
    /// connection is forgotten at once (its `closed` later is a no-op).
    public mutating func opened(_ id: ID, address: String) -> Decision {
        let held = count(of: address)
        if maximumPerAddress > 0, held >= maximumPerAddress {
            return .refuse(.addressFull)
        }
        guard total >= maximumTotal else {
            record(id, address: address)
            return .admit
        }
        // Displacing makes sense only when the newcomer stays lighter than the client it
        // takes a connection from; otherwise two heavy clients would just trade places.
        guard let connections = heaviestClientConnections(), held + 2 <= connections.count, let oldest = connections.first else {
            return .refuse(.serverFull)
        }
        closed(oldest)
        record(id, address: address)
        return .admitEvicting(oldest)
    }

    /// Forgets connection `id` (closed by either side); unknown ids are ignored.
    public mutating func closed(_ id: ID) {
        guard let address = addressOf.removeValue(forKey: id) else { return }
        byAddress[address]?.removeAll { $0 == id }
        if byAddress[address]?.isEmpty == true { byAddress.removeValue(forKey: address) }
    }

    private mutating func record(_ id: ID, address: String) {
        addressOf[id] = address
        byAddress[address, default: []].append(id)
    }

    /// The connections of the address holding the most (among equals, the one whose oldest
    /// connection is oldest, so that the choice does not depend on dictionary order).
    private func heaviestClientConnections() -> [ID]? {
        var best: [ID]?
        for connections in byAddress.values {
            guard let current = best else {
                best = connections
                continue
            }
            if connections.count > current.count || (connections.count == current.count && (connections.first ?? .max) < (current.first ?? .max)) {
                best = connections
            }
        }
        return best
    }
}
