import FrostboxOpenMeteo
import Testing

@Suite("Open-Meteo configuration redaction")
struct ConfigurationRedactionTests {
    @Test("describing, reflecting or dumping the configuration never shows the API key")
    func apiKeyNeverPrinted() {
        let key = "sk-live-0123456789abcdef"
        let configuration = OpenMeteoSettings(baseURL: "https://customer-api.open-meteo.com", apiKey: key)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [String(describing: configuration), String(reflecting: configuration), "\(configuration)", dumped] {
            #expect(!text.contains(key))
            #expect(text.contains("<redacted>"))
        }
    }
}
