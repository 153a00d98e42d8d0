import FrostboxCore

/// The fields a request body may carry, object by object. A body is checked against it before
/// it is decoded, so a misspelt field (`"setings"`) is refused instead of silently dropped,
/// and a key sent twice is refused instead of one of its values being taken.
indirect enum JSONFields: Sendable {
    /// Any object members (the legacy routes: the existing app's bodies are taken as they are).
    case any
    /// An object with these members; each member's own fields (`.any` for a plain value).
    case object([String: JSONFields])

    /// The first problem in `bytes` (UTF-8 JSON): a key repeated within one object, else every
    /// unknown member of the first object that has some. Nil when there is none, and when the
    /// text is not JSON at all (the decoder then says so).
    func problem(in bytes: some Collection<UInt8>) -> JSONFieldProblem? {
        var scanner = JSONKeyScanner(Array(bytes))
        scanner.skipWhitespace()
        do {
            try scanner.value(self, path: [])
        } catch let problem as JSONFieldProblem {
            return problem
        } catch {
            return nil
        }
        return nil
    }
}

/// A member a body may not carry, or a key it carries twice.
struct JSONFieldProblem: Error, Equatable {
    enum Kind: Equatable {
        case duplicate
        case unknown(allowed: [String])
    }
    var kind: Kind
    /// The object's path (`settings`), empty for the body itself.
    var path: [String]
    /// The keys at fault, in the order sent.
    var keys: [String]

    /// `settings.freez_c`.
    func qualified(_ key: String) -> String { (path + [key]).joined(separator: ".") }

    /// The 400 a client gets.
    var apiError: APIError {
        let named = keys.map { "'\(qualified($0))'" }.joined(separator: ", ")
        switch kind {
        case .duplicate:
            return APIError(.badRequest, code: "duplicate_field", "field \(named) appears more than once; send each field once")
        case .unknown(let allowed):
            let suggestion = keys.count == 1 ? Spelling.closest(to: keys[0], in: allowed).map { " (did you mean '\(qualified($0))'?)" } ?? "" : ""
            let place = path.isEmpty ? "the body" : "'\(path.joined(separator: "."))'"
            return APIError(
                .badRequest, code: "unknown_field",
                "unknown field\(keys.count == 1 ? "" : "s") \(named)\(suggestion); \(place) takes \(allowed.joined(separator: ", "))")
        }
    }
}

/// A small JSON reader that only follows the structure (objects, their keys, arrays), enough to
/// find repeated and unknown keys. Anything it cannot read is left to the decoder.
private struct JSONKeyScanner {
    struct Malformed: Error {}

    /// Deeper than any body Frostbox reads; a deeper body is left to the decoder, unread here,
    /// so that no body can exhaust the stack.
    static let maximumDepth = 32

    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func value(_ fields: JSONFields, path: [String]) throws {
        guard path.count < Self.maximumDepth, index < bytes.count else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object(fields, path: path)
        case UInt8(ascii: "["): try array(path: path)
        case UInt8(ascii: "\""): _ = try string()
        default:
            // A number, true, false or null: up to the next delimiter.
            let start = index
            while index < bytes.count, !",]} \n\r\t".utf8.contains(bytes[index]) { index += 1 }
            if index == start { throw Malformed() }
        }
        skipWhitespace()
    }

    mutating func object(_ fields: JSONFields, path: [String]) throws {
        index += 1
        skipWhitespace()
        var seen: Set<String> = []
        var unknown: [String] = []
        var duplicates: [String] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed() }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Malformed() }
            index += 1
            skipWhitespace()
            if !seen.insert(key).inserted, !duplicates.contains(key) { duplicates.append(key) }
            var member = JSONFields.any
            if case .object(let allowed) = fields {
                if let known = allowed[key] { member = known } else if !unknown.contains(key) { unknown.append(key) }
            }
            try value(member, path: path + [key])
            guard index < bytes.count else { throw Malformed() }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw Malformed() }
            index += 1
            break
        }
        if !duplicates.isEmpty { throw JSONFieldProblem(kind: .duplicate, path: path, keys: duplicates) }
        if case .object(let allowed) = fields, !unknown.isEmpty {
            throw JSONFieldProblem(kind: .unknown(allowed: allowed.keys.sorted()), path: path, keys: unknown)
        }
    }

    mutating func array(path: [String]) throws {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        var position = 0
        while true {
            try value(.any, path: path + ["[\(position)]"])
            position += 1
            guard index < bytes.count else { throw Malformed() }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw Malformed() }
            index += 1
            return
        }
    }

    /// A string's value, escapes resolved (so `"a"` and `"\u0061"` are the same key).
    mutating func string() throws -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            if !raw.isEmpty {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard index < bytes.count else { throw Malformed() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    // A high surrogate joins the low one that follows it; alone (or before any
                    // other escape, which is then read on its own) it is U+FFFD.
                    if (0xD800..<0xDC00).contains(code), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        let next = index
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = next
                        }
                    }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                default: scalars.append(Unicode.Scalar(escape))
                }
            default:
                raw.append(byte)
            }
        }
        throw Malformed()
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw Malformed()
        }
        index += 4
        return code
    }
}
