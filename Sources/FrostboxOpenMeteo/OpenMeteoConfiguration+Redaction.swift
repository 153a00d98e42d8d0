extension OpenMeteoSettings: CustomReflectable {
    /// Printing, dumping or logging the configuration never shows the API key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "baseURL": baseURL, "apiKey": apiKey == nil ? "none" : "<redacted>", "forecastDays": forecastDays,
                "batchSize": batchSize, "requestTimeoutSeconds": requestTimeoutSeconds,
                "connectTimeoutSeconds": connectTimeoutSeconds,
            ], displayStyle: .struct)
    }
}
