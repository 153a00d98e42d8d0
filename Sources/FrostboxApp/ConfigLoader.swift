import Configuration
import Foundation
import FrostboxCore
import FrostboxHTTP
import Logging
import Yams

/// Loads a `FrostboxSettings` with swift-configuration, each source overriding the one before:
/// built-in defaults < YAML file (`--config` or `FROSTBOX_CONFIG`) < environment
/// (`FROSTBOX_SERVER_PORT` for `server.port`) < command line (`--set key=value` and the named
/// options). Every value is checked; a bad one stops start-up with an error naming the key and
/// where it came from. Unknown keys in the file are errors too, so a typo is never ignored.
public enum ConfigLoader {
    /// Where the configuration comes from.
    public struct Sources: Sendable {
        /// The YAML file; nil falls back to `FROSTBOX_CONFIG`, then to no file.
        public var configPath: String?
        /// The process environment (only `FROSTBOX_…` variables are read).
        public var environment: [String: String]
        /// Command-line values by key (`server.port` → `8081`); they win over everything.
        public var overrides: [String: String]

        public init(configPath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment, overrides: [String: String] = [:]) {
            self.configPath = configPath
            self.environment = environment
            self.overrides = overrides
        }
    }

    /// The prefix of Frostbox's environment variables.
    public static let environmentPrefix = "FROSTBOX"

    /// Command-line values: the named options (nil when not given) and `--set key=value` pairs.
    public static func overrides(named: [String: String?], settings: [String]) throws(ConfigurationError) -> [String: String] {
        var values: [String: String] = [:]
        for setting in settings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw ConfigurationError(key: nil, source: "command line", "--set takes key=value, e.g. --set server.port=8081 (got \"\(setting)\")")
            }
            values[String(setting[..<equals])] = String(setting[setting.index(after: equals)...])
        }
        for (key, value) in named {
            if let value { values[key] = value }
        }
        return values
    }

    /// Reads, merges and validates the configuration.
    public static func load(_ sources: Sources, logger: Logger) async throws(ConfigurationError) -> FrostboxSettings {
        try await loadReporting(sources, logger: logger).config
    }

    /// `load`, also answering every key it knows (to check the documented example against).
    static func loadReporting(_ sources: Sources, logger: Logger) async throws(ConfigurationError) -> (config: FrostboxSettings, keys: Set<String>) {
        var sources = sources
        // FROSTBOX_DB: the quick start's name for the database file, kept working.
        if let legacy = sources.environment["\(environmentPrefix)_DB"], sources.environment["\(environmentPrefix)_DATABASE_PATH"] == nil {
            sources.environment["\(environmentPrefix)_DATABASE_PATH"] = legacy
        }
        let path = sources.configPath ?? sources.environment["\(environmentPrefix)_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        var providers: [any ConfigProvider] = []
        if !sources.overrides.isEmpty {
            var values: [AbsoluteConfigKey: ConfigValue] = [:]
            for (key, value) in sources.overrides {
                values[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(.string(value), isSecret: ConfigKeys.isSecret(key))
            }
            providers.append(InMemoryProvider(name: "command line", values: values))
        }
        providers.append(
            EnvironmentVariablesProvider(
                environmentVariables: sources.environment.filter { $0.key.hasPrefix("\(environmentPrefix)_") },
                secretsSpecifier: .dynamic { key, _ in ConfigKeys.secretEnvironmentNames.contains(key) }
            ).prefixKeys(with: ConfigKey(environmentPrefix.lowercased())))
        var fileKeys: [String: YAMLShape] = [:]
        if let path {
            fileKeys = try fileShape(path)
            do {
                providers.append(try await FileProvider<YAMLSnapshot>(filePath: .init(path)))
            } catch {
                throw ConfigurationError(key: nil, source: "file \(path)", "cannot read the configuration file: \(error)")
            }
        }
        var reader = Reader(config: ConfigReader(providers: providers), sources: sources, filePath: path, fileKeys: fileKeys)
        let config = try ConfigKeys.read(&reader, logger: logger)
        try reader.rejectUnknownFileKeys()
        try reader.rejectUnknownOverrideKeys()
        try reader.rejectUnknownEnvironment()
        return (config, reader.known)
    }

    /// The leaf keys of the YAML file and whether each is a scalar, for the unknown-key and
    /// shape checks (swift-configuration silently skips values of the wrong shape).
    static func fileShape(_ path: String) throws(ConfigurationError) -> [String: YAMLShape] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: nil, source: "file \(path)", "the configuration file does not exist or cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(key: nil, source: "file \(path)", "the configuration file is not UTF-8 text")
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(key: nil, source: "file \(path)", "the configuration file is not valid YAML: \(describeYAMLError(error))")
        }
        guard let node else { return [:] }
        guard let mapping = node.mapping else {
            throw ConfigurationError(key: nil, source: "file \(path)", "the configuration file must be a mapping of keys")
        }
        var shapes: [String: YAMLShape] = [:]
        func walk(_ mapping: Node.Mapping, prefix: String) {
            for (key, value) in mapping {
                let name = prefix.isEmpty ? (key.string ?? "?") : "\(prefix).\(key.string ?? "?")"
                if let child = value.mapping {
                    if child.count == 0 { shapes[name] = .mapping }
                    walk(child, prefix: name)
                } else if value.sequence != nil {
                    shapes[name] = .sequence
                } else if value.scalar?.tag == .init(.null) || (value.scalar?.string ?? "") == "~" {
                    shapes[name] = .null
                } else {
                    shapes[name] = .scalar
                }
            }
        }
        walk(mapping, prefix: "")
        return shapes
    }

    /// A YAML syntax error by where it is and what is wrong, never quoting the file: the line
    /// at fault may hold a secret (Yams' own description prints it with a caret under it).
    static func describeYAMLError(_ error: any Error) -> String {
        func at(_ mark: Mark, _ context: YamlError.Context?, _ problem: String) -> String {
            let while_ = context.map { " (\($0.text))" } ?? ""
            return "\(problem)\(while_) at line \(mark.line), column \(mark.column)"
        }
        guard let yaml = error as? YamlError else { return "unreadable YAML" }
        switch yaml {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            return at(mark, context, problem)
        case .reader(let problem, let offset, _, _):
            return "\(problem)\(offset.map { " at byte \($0)" } ?? "")"
        case .duplicatedKeysInMapping(let duplicates, let context):
            return "duplicated keys \(duplicates.sorted().joined(separator: ", ")) at line \(context.mark.line)"
        case .no, .memory, .writer, .emitter, .representer, .dataCouldNotBeDecoded:
            return "unreadable YAML"
        }
    }

    /// What a YAML value was.
    enum YAMLShape: Equatable {
        case scalar, sequence, mapping, null
    }
}

/// An invalid configuration: the key at fault, where its value came from, and what is wrong.
/// Secret values are never repeated in the message.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The dotted key (`server.port`), when one key is at fault.
    public let key: String?
    /// `command line`, `environment FROSTBOX_SERVER_PORT`, `file /etc/frostbox.yaml`, or `default`.
    public let source: String
    /// What is wrong.
    public let message: String

    public init(key: String?, source: String, _ message: String) {
        self.key = key
        self.source = source
        self.message = message
    }

    public var description: String {
        if let key { return "invalid configuration: \(key) (\(source)): \(message)" }
        return "invalid configuration (\(source)): \(message)"
    }
}

extension ConfigLoader {
    /// Typed, validated reads over a `ConfigReader`, remembering every key read so that
    /// unknown keys can be reported.
    struct Reader {
        let config: ConfigReader
        let sources: Sources
        let filePath: String?
        let fileKeys: [String: YAMLShape]
        private(set) var known: Set<String> = []
        /// Prefixes under which any key is accepted (none so far; kept for dynamic sections).
        var knownPrefixes: [String] = []

        init(config: ConfigReader, sources: Sources, filePath: String?, fileKeys: [String: YAMLShape]) {
            self.config = config
            self.sources = sources
            self.filePath = filePath
            self.fileKeys = fileKeys
        }

        /// The environment variable that sets `key`.
        static func environmentName(_ key: String) -> String {
            let encoded = key.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
            return "\(ConfigLoader.environmentPrefix)_\(String(encoded))"
        }

        /// Which source supplied `key`.
        func source(of key: String) -> String {
            if sources.overrides[key] != nil { return "command line" }
            let variable = Self.environmentName(key)
            if sources.environment[variable] != nil { return "environment \(variable)" }
            if fileKeys[key] != nil, let filePath { return "file \(filePath)" }
            return "default"
        }

        /// The raw text of `key`, nil when no source sets it.
        mutating func string(_ key: String, secret: Bool = false) throws(ConfigurationError) -> String? {
            known.insert(key)
            if let shape = fileKeys[key], shape != .scalar, sources.overrides[key] == nil,
                sources.environment[Self.environmentName(key)] == nil
            {
                if shape == .null { return nil }
                throw ConfigurationError(key: key, source: source(of: key), "must be a single value, not a \(shape == .sequence ? "list" : "section")")
            }
            return config.string(forKey: ConfigKey(key), isSecret: secret)
        }

        /// A list: a YAML sequence in the file, or comma-separated text (environment, command
        /// line, or a scalar in the file); nil when no source sets `key`.
        mutating func list(_ key: String) throws(ConfigurationError) -> [String]? {
            known.insert(key)
            if fileKeys[key] == .sequence, sources.overrides[key] == nil, sources.environment[Self.environmentName(key)] == nil {
                guard let values = config.stringArray(forKey: ConfigKey(key)) else {
                    throw fail(key, "must be a list of text values")
                }
                return values
            }
            guard let raw = try string(key) else { return nil }
            return raw.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        func fail(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(key: key, source: source(of: key), message)
        }

        /// A required key that no source sets (or sets empty). When a source sets a key of the
        /// same section that is a typo of it (not one of the section's `fields`), that key is
        /// the error: unknown, with its "did you mean", as other unknown keys are. Otherwise
        /// the error says where the value was looked for.
        func required(_ key: String, fields: [String], _ message: String) -> ConfigurationError {
            guard source(of: key) == "default" else { return fail(key, message) }
            let parts = key.split(separator: ".")
            let section = parts.dropLast().joined(separator: ".")
            let field = String(parts.last ?? "")
            let set = (Array(fileKeys.keys) + Array(sources.overrides.keys)).filter { $0.hasPrefix(section + ".") && !known.contains($0) }
            let strays = set.map { String($0.dropFirst(section.count + 1)) }.filter { !$0.contains(".") && !fields.contains($0) }
            if let typo = strays.first(where: { Spelling.closest(to: $0, in: [field]) != nil }) {
                let typoKey = "\(section).\(typo)"
                return ConfigurationError(key: typoKey, source: source(of: typoKey), "unknown key (did you mean \(key)?); \(key) \(message)")
            }
            let variable = Self.environmentName(key)
            let sectionVariable = Self.environmentName(section) + "_"
            let strayVariables = sources.environment.keys.filter {
                $0.hasPrefix(sectionVariable) && !fields.map { sectionVariable + $0.uppercased() }.contains($0)
            }
            if let typo = strayVariables.sorted().first(where: { Spelling.closest(to: $0, in: [variable]) != nil }) {
                return ConfigurationError(key: nil, source: "environment \(typo)", "unknown variable (did you mean \(variable)?); \(key) \(message)")
            }
            let places = [filePath.map { "file \($0)" } ?? "no configuration file", "environment \(variable)", "--set \(key)=…"]
            return ConfigurationError(key: key, source: "not set; looked for in \(places.joined(separator: ", "))", message)
        }

        /// A file path whose folder exists (SQLite would only say "unable to open database
        /// file"); nil when no source sets `key`. `empty` and `hint` finish the refusals.
        mutating func filePath(_ key: String, empty: String, hint: String = "") throws(ConfigurationError) -> String? {
            guard let path = try string(key) else { return nil }
            guard !path.isEmpty else { throw fail(key, "must not be empty" + empty) }
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw fail(key, "the folder \(folder) does not exist" + hint)
            }
            return path
        }

        mutating func int(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
            guard let raw = try string(key) else { return nil }
            let text = raw.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")
            guard let value = Int(text), range.contains(value) else {
                throw fail(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \"\(raw)\")")
            }
            return value
        }

        mutating func double(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
            guard let raw = try string(key) else { return nil }
            let text = raw.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw fail(key, "must be a number from \(range.lowerBound) to \(range.upperBound) (got \"\(raw)\")")
            }
            return value
        }

        mutating func bool(_ key: String) throws(ConfigurationError) -> Bool? {
            guard let raw = try string(key) else { return nil }
            switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: throw fail(key, "must be true or false (got \"\(raw)\")")
            }
        }

        mutating func choice(_ key: String, _ allowed: [String]) throws(ConfigurationError) -> String? {
            guard let raw = try string(key) else { return nil }
            let value = raw.trimmingCharacters(in: .whitespaces).lowercased()
            guard allowed.contains(value) else {
                throw fail(key, "must be one of \(allowed.joined(separator: ", ")) (got \"\(raw)\")")
            }
            return value
        }

        /// A duration: `250ms`, `30s`, `5m`, `2h`, `7d`, or a plain number of seconds.
        mutating func duration(_ key: String, in range: ClosedRange<Duration>) throws(ConfigurationError) -> Duration? {
            guard let raw = try string(key) else { return nil }
            let bounds = "from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
            guard let value = Self.parseDuration(raw) else {
                throw fail(key, "must be a duration such as 250ms, 30s, 5m or 2h, \(bounds) (got \"\(raw)\")")
            }
            // A duration that reads well but lies outside the range: say so, not "must be a duration".
            guard range.contains(value) else { throw fail(key, "must be \(bounds) (got \"\(raw)\")") }
            return value
        }

        static func parseDuration(_ raw: String) -> Duration? {
            let text = raw.trimmingCharacters(in: .whitespaces).lowercased()
            let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
            var number = Substring(text)
            var scale = 1.0
            for (suffix, factor) in units where text.hasSuffix(suffix) {
                number = text.dropLast(suffix.count)
                scale = factor
                break
            }
            guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 else { return nil }
            let milliseconds = (value * scale * 1_000).rounded()
            guard milliseconds < 1e15 else { return nil }
            return .milliseconds(Int64(milliseconds))
        }

        static func format(_ duration: Duration) -> String {
            let seconds = duration.components.seconds
            if seconds == 0 { return "\(duration.inMilliseconds)ms" }
            if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
            if seconds % 3_600 == 0 { return "\(seconds / 3_600)h" }
            if seconds % 60 == 0 { return "\(seconds / 60)m" }
            return "\(seconds)s"
        }

        /// A file key no read asked for is a typo or a key of another version: refuse it.
        func rejectUnknownFileKeys() throws(ConfigurationError) {
            let unknown = fileKeys.keys.filter { key in
                !known.contains(key) && !knownPrefixes.contains { key.hasPrefix($0) }
            }.sorted()
            if let first = unknown.first, let filePath {
                let suggestion = Self.closest(to: first, in: known).map { " (did you mean \($0)?)" } ?? ""
                throw ConfigurationError(key: first, source: "file \(filePath)", "unknown key\(suggestion)")
            }
        }

        /// A `--set` key no read asked for would be ignored silently: refuse it too.
        func rejectUnknownOverrideKeys() throws(ConfigurationError) {
            let unknown = sources.overrides.keys.filter { key in
                !known.contains(key) && !knownPrefixes.contains { key.hasPrefix($0) }
            }.sorted()
            if let first = unknown.first {
                let suggestion = Self.closest(to: first, in: known).map { " (did you mean \($0)?)" } ?? ""
                throw ConfigurationError(key: first, source: "command line", "unknown key\(suggestion)")
            }
        }

        /// An environment variable with our prefix that matches no key is a typo (or a key of
        /// another version) that would be ignored silently: refuse it, as a file or `--set` typo is.
        func rejectUnknownEnvironment() throws(ConfigurationError) {
            let names = Set(known.map(Self.environmentName)).union(["\(ConfigLoader.environmentPrefix)_CONFIG", "\(ConfigLoader.environmentPrefix)_DB"])
            let unknown = sources.environment.keys.filter { $0.hasPrefix("\(ConfigLoader.environmentPrefix)_") && !names.contains($0) }.sorted()
            if let first = unknown.first {
                let suggestion = Self.closest(to: first, in: names).map { " (did you mean \($0)?)" } ?? ""
                throw ConfigurationError(key: nil, source: "environment \(first)", "unknown variable\(suggestion)")
            }
        }

        static func closest(to key: String, in candidates: Set<String>) -> String? {
            Spelling.closest(to: key, in: candidates)
        }
    }
}
