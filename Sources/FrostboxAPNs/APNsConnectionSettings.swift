import FrostboxPushEngine

/// The connection settings of APNs gateways: the push engine's, whose defaults suit Apple.
public typealias APNsConnectionSettings = HTTP2ConnectionSettings
