import FrostboxHTTP
import Testing

/// `ConnectionAdmission` behind a reference: `#expect` cannot call a value's mutating methods.
final class AdmissionDriver {
    var state: ConnectionAdmission
    init(_ state: ConnectionAdmission) { self.state = state }
    func opened(_ id: ConnectionAdmission.ID, address: String) -> ConnectionAdmission.Decision { state.opened(id, address: address) }
    func closed(_ id: ConnectionAdmission.ID) { state.closed(id) }
    func count(of address: String) -> Int { state.count(of: address) }
    var total: Int { state.total }
}

@Suite("Connection admission")
struct ConnectionAdmissionTests {
    @Test("an address at its cap is refused; its closed connection makes room again")
    func perAddressCap() {
        let admission = AdmissionDriver(ConnectionAdmission(maximumTotal: 100, maximumPerAddress: 2))
        #expect(admission.opened(1, address: "10.0.0.1") == .admit)
        #expect(admission.opened(2, address: "10.0.0.1") == .admit)
        #expect(admission.opened(3, address: "10.0.0.1") == .refuse(.addressFull))
        #expect(admission.opened(4, address: "10.0.0.2") == .admit)
        admission.closed(1)
        #expect(admission.opened(5, address: "10.0.0.1") == .admit)
        #expect(admission.count(of: "10.0.0.1") == 2)
        #expect(admission.total == 3)
    }

    @Test("a per-address cap of 0 caps nothing per address")
    func noPerAddressCap() {
        let admission = AdmissionDriver(ConnectionAdmission(maximumTotal: 5, maximumPerAddress: 0))
        for id in 1...5 { #expect(admission.opened(UInt64(id), address: "a") == .admit) }
        #expect(admission.count(of: "a") == 5)
    }

    @Test("at the global cap a lighter client displaces the heaviest client's oldest connection")
    func lighterDisplacesHeaviest() {
        let admission = AdmissionDriver(ConnectionAdmission(maximumTotal: 4, maximumPerAddress: 0))
        for id in 1...3 { _ = admission.opened(UInt64(id), address: "flood") }
        #expect(admission.opened(4, address: "other") == .admit)
        #expect(admission.opened(5, address: "probe") == .admitEvicting(1))
        #expect(admission.total == 4)
        #expect(admission.count(of: "flood") == 2)
        // Evicted connections are already forgotten: their close changes nothing.
        admission.closed(1)
        #expect(admission.total == 4)
    }

    @Test("at the global cap the heaviest client, or one about as heavy, is refused")
    func heaviestRefused() {
        let admission = AdmissionDriver(ConnectionAdmission(maximumTotal: 4, maximumPerAddress: 0))
        for id in 1...3 { _ = admission.opened(UInt64(id), address: "flood") }
        _ = admission.opened(4, address: "other")
        #expect(admission.opened(5, address: "flood") == .refuse(.serverFull))
        // Two clients of 2: a newcomer from either would only trade places with the other.
        let even = AdmissionDriver(ConnectionAdmission(maximumTotal: 4, maximumPerAddress: 0))
        for id in 1...2 { _ = even.opened(UInt64(id), address: "a") }
        for id in 3...4 { _ = even.opened(UInt64(id), address: "b") }
        #expect(even.opened(5, address: "a") == .refuse(.serverFull))
        #expect(even.opened(6, address: "c") == .admitEvicting(1))
        // 1 against 3: one taken from the flood leaves them even.
        #expect(admission.opened(6, address: "other") == .admitEvicting(1))
        #expect(admission.opened(7, address: "other") == .refuse(.serverFull))
    }

    @Test("among equally heavy clients the one with the oldest connection gives way")
    func tieBreakByAge() {
        let admission = AdmissionDriver(ConnectionAdmission(maximumTotal: 6, maximumPerAddress: 0))
        for (id, address) in [(1, "b"), (2, "a"), (3, "a"), (4, "b"), (5, "a"), (6, "b")] {
            _ = admission.opened(UInt64(id), address: address)
        }
        #expect(admission.opened(7, address: "c") == .admitEvicting(1))
        #expect(admission.opened(8, address: "d") == .admitEvicting(2))
    }

    @Test("one address flooding the server cannot lock a second address out")
    func floodDoesNotLockOut() {
        let admission = AdmissionDriver(ConnectionAdmission(maximumTotal: 1_024, maximumPerAddress: 0))
        var id: UInt64 = 0
        for _ in 0..<5_000 {
            id += 1
            _ = admission.opened(id, address: "127.0.0.1")
        }
        #expect(admission.total == 1_024)
        for _ in 0..<10 {
            id += 1
            #expect(admission.opened(id, address: "127.0.0.2") != .refuse(.serverFull))
        }
        #expect(admission.count(of: "127.0.0.2") == 10)
    }
}
