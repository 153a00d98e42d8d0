import ArgumentParser
import FrostboxApp

/// The `frostbox` command: a thin front over `FrostboxApp`.
@main
struct Frostbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frostbox",
        abstract: "Frost alerts for weather-app devices: places, forecasts per 0.05° box, pushes through APNs (iOS) and FCM (Android).",
        version: FrostboxVersion.current,
        subcommands: [Serve.self, Import.self, Search.self, Notify.self, Runs.self, Verify.self, Forecast.self, PushTest.self, WebPush.self]
    )
}
