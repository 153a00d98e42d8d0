import FrostboxOpenMeteo

extension ForecastSettings: CustomReflectable {
    /// Printing, dumping or logging the settings never shows the API key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "baseURL": baseURL, "apiKey": apiKey == nil ? "none" : "<redacted>", "batchSize": batchSize,
            ], displayStyle: .struct)
    }
}
