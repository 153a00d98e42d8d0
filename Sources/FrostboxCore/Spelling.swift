/// Suggestions for a mistyped name: the closest of the names that exist, by edit distance,
/// when it is close enough to be the one meant. Used for configuration keys and request fields.
public enum Spelling {
    /// The candidate nearest to `name` (ties: the first in sorted order), or nil when none is
    /// within `max(2, name.count / 4)` edits.
    public static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in Set(candidates).sorted() {
            let d = distance(name, candidate)
            if d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, name.count / 4) else { return nil }
        return best.name
    }

    /// The Levenshtein distance between two strings, by characters.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
