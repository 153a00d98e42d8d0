import FrostboxCore
import Metrics
import NIOCore
import Synchronization

/// The server's open connections, shared by every connection's `ConnectionGuardHandler`
/// across event loops: `ConnectionAdmission` decides, this closes what it says to close.
public final class ConnectionRegistry: Sendable {
    private struct State {
        var admission: ConnectionAdmission
        var channels: [ConnectionAdmission.ID: any Channel] = [:]
        var nextID: ConnectionAdmission.ID = 0
    }

    private let state: Mutex<State>
    private let refusedAddressFull: Counter
    private let refusedServerFull: Counter
    private let displaced: Counter

    public init(limits: ConnectionLimits, metrics: any MetricsFactory = MetricsSystem.factory) {
        state = Mutex(
            State(admission: ConnectionAdmission(maximumTotal: limits.maximumConnections, maximumPerAddress: limits.maximumConnectionsPerAddress)))
        func counter(_ reason: String) -> Counter {
            Counter(label: FrostboxMetrics.Name.httpConnectionsRefused, dimensions: [(FrostboxMetrics.Label.reason, reason)], factory: metrics)
        }
        refusedAddressFull = counter(ConnectionAdmission.Refusal.addressFull.rawValue)
        refusedServerFull = counter(ConnectionAdmission.Refusal.serverFull.rawValue)
        displaced = counter("displaced")
    }

    /// Connections open now.
    public var openConnections: Int { state.withLock { $0.admission.total } }

    /// Records `channel`, just opened; nil when it is refused (the caller closes it). A
    /// connection displaced to make room is closed here.
    func opened(_ channel: any Channel) -> ConnectionAdmission.ID? {
        let address = RateLimiter.clientKey(address: channel.remoteAddress?.ipAddress)
        let (id, decision, evicted) = state.withLock { state -> (ConnectionAdmission.ID, ConnectionAdmission.Decision, (any Channel)?) in
            state.nextID += 1
            let id = state.nextID
            let decision = state.admission.opened(id, address: address)
            switch decision {
            case .admit:
                state.channels[id] = channel
                return (id, decision, nil)
            case .admitEvicting(let old):
                state.channels[id] = channel
                return (id, decision, state.channels.removeValue(forKey: old))
            case .refuse:
                return (id, decision, nil)
            }
        }
        switch decision {
        case .admit:
            return id
        case .admitEvicting:
            displaced.increment()
            evicted?.close(promise: nil)
            return id
        case .refuse(.addressFull):
            refusedAddressFull.increment()
            return nil
        case .refuse(.serverFull):
            refusedServerFull.increment()
            return nil
        }
    }

    /// Forgets connection `id`, closed; a displaced one is already forgotten.
    func closed(_ id: ConnectionAdmission.ID) {
        state.withLock { state in
            state.admission.closed(id)
            state.channels.removeValue(forKey: id)
        }
    }
}
