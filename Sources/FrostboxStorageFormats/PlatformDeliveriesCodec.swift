import FrostboxCore

/// The text form of a run's deliveries by platform, stored alike by both database adapters:
/// `platform:delivered:failed` per platform, separated by `;`, in platform order; the empty
/// text for none.
public enum PlatformDeliveriesCodec {
    public static func encode(_ deliveries: PlatformDeliveries) -> String {
        deliveries.counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue):\($0.value.delivered):\($0.value.failed)" }
            .joined(separator: ";")
    }

    /// The counts; an item this version cannot read (a platform it does not know, a damaged
    /// number) is skipped, so one bad item never hides a run.
    public static func decode(_ text: String) -> PlatformDeliveries {
        var deliveries = PlatformDeliveries()
        for item in text.split(separator: ";") {
            let parts = item.split(separator: ":")
            guard parts.count == 3, let platform = DevicePlatform(rawValue: String(parts[0])), let delivered = Int(parts[1]),
                let failed = Int(parts[2]), delivered >= 0, failed >= 0
            else { continue }
            deliveries.delivered(platform, delivered)
            deliveries.failed(platform, failed)
        }
        return deliveries
    }
}
