import FrostboxCore

extension InMemoryNotifierStore: DeviceVerificationStore {
    public func pendingDevices(after: DeviceToken?, limit: Int) async throws -> [PendingDevice] {
        state.withLock { state in
            Array(
                state.devices.filter { $0.value.verifiedAt == nil && $0.key.value > (after?.value ?? "") }
                    .sorted { $0.key.value < $1.key.value }.prefix(max(0, limit))
                    .map { Self.pending($0.key, $0.value) })
        }
    }

    public func pendingDevices(createdBefore: Int64, limit: Int) async throws -> [PendingDevice] {
        state.withLock { state in
            Array(
                state.devices.filter { $0.value.verifiedAt == nil && $0.value.createdAt < createdBefore }
                    .sorted { ($0.value.createdAt, $0.key.value) < ($1.value.createdAt, $1.key.value) }.prefix(max(0, limit))
                    .map { Self.pending($0.key, $0.value) })
        }
    }

    public func markVerified(_ tokens: [DeviceToken], at now: Int64) async throws {
        state.withLock { state in
            for token in tokens where state.devices[token] != nil && state.devices[token]?.verifiedAt == nil {
                state.devices[token]?.verifiedAt = now
            }
        }
    }

    @discardableResult
    public func purgePendingDevices(createdBefore: Int64) async throws -> Int {
        state.withLock { state in
            let gone = Set(state.devices.filter { $0.value.verifiedAt == nil && $0.value.createdAt < createdBefore }.keys)
            for token in gone { state.devices[token] = nil }
            state.places.removeAll { gone.contains($0.place.token) }
            state.outbox.removeAll { gone.contains($0.entry.token) }
            state.alerted = state.alerted.filter { !gone.contains($0.key.token) }
            return gone.count
        }
    }

    public func verificationCounts() async throws -> VerificationCounts {
        state.withLock { state in
            let verifiedBoxes = Set(state.places.filter { state.devices[$0.place.token]?.verifiedAt != nil }.map(\.box))
            return VerificationCounts(
                pendingDevices: state.devices.values.filter { $0.verifiedAt == nil }.count,
                boxesAwaitingVerification: Set(state.places.map(\.box)).subtracting(verifiedBoxes).count)
        }
    }

    /// Whether the device is stored and verified.
    public func isVerified(_ token: DeviceToken) -> Bool { verifiedAt(token) != nil }

    /// When the device was proven real; nil while pending or when unknown.
    public func verifiedAt(_ token: DeviceToken) -> Int64? { state.withLock { $0.devices[token]?.verifiedAt } }

    private static func pending(_ token: DeviceToken, _ facts: DeviceFacts) -> PendingDevice {
        PendingDevice(
            token: token, platform: facts.platform, app: facts.app, environment: facts.environment, createdAt: facts.createdAt,
            registeredAt: facts.registeredAt)
    }
}
