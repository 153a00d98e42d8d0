import ArgumentParser
import Foundation
import FrostboxApp

/// `frostbox webpush keys --out FILE`: a VAPID key pair for a Web Push app.
struct WebPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush", abstract: "Web Push (browsers) set-up.", subcommands: [Keys.self])

    struct Keys: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a VAPID key pair: the private key into a new file (mode 0600), the public key printed.")

        @Option(help: "Where to write the private key (PEM); refused if something is there.") var out: String

        func run() throws {
            do {
                for line in try WebPushCommands.makeKeys(out: out) { print(line) }
            } catch {
                FileHandle.standardError.write(Data("frostbox webpush keys: \(error.message)\n".utf8))
                throw ExitCode(73)  // EX_CANTCREAT
            }
        }
    }
}
