import Hummingbird
import NIOCore

/// The request context of every Frostbox route: caps bodies at 64 KiB and remembers the
/// client's address (for rate limits).
public struct FrostboxRequestContext: RequestContext {
    /// Largest request body accepted; larger ones get a 413.
    public static let maximumBodySize = 64 * 1024

    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, when the transport knows it.
    public let remoteAddress: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    public var maxUploadSize: Int { Self.maximumBodySize }
}
