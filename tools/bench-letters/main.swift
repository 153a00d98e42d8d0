// bench-letters: how many letters a user types before the town they mean comes first, for
// Frostbox's search and for a naive ranking, in the same run, on an imported places file.
//
//   bench-letters --db FILE [--towns 300] [--min-population 20000] [--seed 1]
//
// A seeded sample of towns (population at least --min-population) is typed letter by letter
// (the GeoNames name, one character at a time) from a seeded point 0–30 km away (uniform
// bearing and distance). For each prefix both rankings answer their top 10; the town's
// "letters until first" is the first prefix length at which it ranks first. Reported: the
// median and mean of that count (as a share of the name's length too), and how often the
// town is first once its whole name is typed.
//
// The naive ranking: places whose name or ASCII name starts with the typed text (folded the
// same way), those within 50 km by population, then everywhere by population.

import Foundation
import FrostboxCore
import FrostboxSQLite
import GRDB

var databasePath: String?
var townCount = 300
var minimumPopulation: Int64 = 20_000
var seed: UInt64 = 1
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--db": databasePath = arguments.next()
    case "--towns": townCount = Int(arguments.next() ?? "") ?? townCount
    case "--min-population": minimumPopulation = Int64(arguments.next() ?? "") ?? minimumPopulation
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    default:
        FileHandle.standardError.write(
            Data("usage: bench-letters --db FILE [--towns N] [--min-population P] [--seed S]\n".utf8))
        exit(2)
    }
}
guard let databasePath else {
    FileHandle.standardError.write(Data("--db is required\n".utf8))
    exit(2)
}

/// A place as the naive ranking sees it.
struct NaivePlace {
    let id: Int64
    let name: String
    let coordinate: Coordinate
    let population: Int64
}

let database = try PlacesDatabase(path: databasePath)
let index = GRDBPlaceIndex(database: database)

// Every place's name and ASCII name folded, sorted, for the naive ranking's prefix ranges.
let (places, forms) = try database.pool.read { db in
    var places: [NaivePlace] = []
    var forms: [(folded: String, place: Int)] = []
    let rows = try Row.fetchCursor(db, sql: "SELECT id, name, ascii_name, latitude, longitude, population FROM place")
    while let row = try rows.next() {
        let name: String = row[1]
        let ascii: String = row[2]
        places.append(
            NaivePlace(
                id: row[0], name: name, coordinate: Coordinate(uncheckedLatitude: row[3], longitude: row[4]), population: row[5]))
        let folded = NameFolding.fold(name)
        forms.append((folded, places.count - 1))
        let foldedASCII = NameFolding.fold(ascii)
        if !foldedASCII.isEmpty && foldedASCII != folded { forms.append((foldedASCII, places.count - 1)) }
    }
    forms.sort { $0.folded.utf8.lexicographicallyPrecedes($1.folded.utf8) }
    return (places, forms)
}

/// The naive ranking's first place for a typed text at a point.
func naiveFirst(_ text: String, near point: Coordinate) -> Int64? {
    let query = NameFolding.fold(text, keepingTrailingSeparator: true)
    guard !query.isEmpty else { return nil }
    // The first form not below the query, then every form starting with it.
    var low = 0
    var high = forms.count
    while low < high {
        let middle = (low + high) / 2
        if forms[middle].folded.utf8.lexicographicallyPrecedes(query.utf8) { low = middle + 1 } else { high = middle }
    }
    var best: (near: Bool, population: Int64, id: Int64)?
    var position = low
    while position < forms.count && NameFolding.hasPrefix(forms[position].folded, query) {
        let place = places[forms[position].place]
        position += 1
        let candidate = (near: point.distanceKilometres(to: place.coordinate) <= 50, population: place.population, id: place.id)
        if let current = best {
            if current.near && !candidate.near { continue }
            if current.near == candidate.near
                && (current.population > candidate.population
                    || (current.population == candidate.population && current.id <= candidate.id))
            {
                continue
            }
        }
        best = candidate
    }
    return best?.id
}

/// A point `kilometres` from `origin` on `bearing` (radians), on a sphere.
func point(from origin: Coordinate, kilometres: Double, bearing: Double) -> Coordinate {
    let radius = 6371.0
    let angle = kilometres / radius
    let latitude = origin.latitude * .pi / 180
    let longitude = origin.longitude * .pi / 180
    let newLatitude = asin(sin(latitude) * cos(angle) + cos(latitude) * sin(angle) * cos(bearing))
    var newLongitude =
        longitude + atan2(sin(bearing) * sin(angle) * cos(latitude), cos(angle) - sin(latitude) * sin(newLatitude))
    newLongitude = (newLongitude + 3 * .pi).truncatingRemainder(dividingBy: 2 * .pi) - .pi
    return Coordinate(
        uncheckedLatitude: max(-90, min(90, newLatitude * 180 / .pi)), longitude: max(-180, min(180, newLongitude * 180 / .pi)))
}

var rng = SplitMix64(seed: seed)
var eligible = places.filter { $0.population >= minimumPopulation && NameFolding.fold($0.name).count >= 1 }
eligible.sort { $0.id < $1.id }
eligible.shuffle(using: &rng)
let towns = eligible.prefix(townCount)

/// One ranking's outcome for one town.
struct Outcome {
    var lettersUntilFirst: Int?
    var firstOnceTyped = false
}

var frostbox: [Outcome] = []
var naive: [Outcome] = []
var lengths: [Int] = []
var frostboxWorse: [(String, Int?, Int?)] = []
for town in towns {
    let from = point(
        from: town.coordinate, kilometres: Double.random(in: 0...30, using: &rng),
        bearing: Double.random(in: 0..<(2 * .pi), using: &rng))
    let letters = Array(town.name)
    var ours = Outcome()
    var theirs = Outcome()
    for count in 1...letters.count {
        let typed = String(letters.prefix(count))
        guard let query = try? PlaceQuery(text: typed, near: from, limit: 10) else { continue }
        let ourFirst = try await index.search(query).first?.place.id
        let theirFirst = naiveFirst(typed, near: from)
        if ourFirst == town.id && ours.lettersUntilFirst == nil { ours.lettersUntilFirst = count }
        if theirFirst == town.id && theirs.lettersUntilFirst == nil { theirs.lettersUntilFirst = count }
        if count == letters.count {
            ours.firstOnceTyped = ourFirst == town.id
            theirs.firstOnceTyped = theirFirst == town.id
        }
    }
    frostbox.append(ours)
    naive.append(theirs)
    lengths.append(letters.count)
    if (ours.lettersUntilFirst ?? Int.max) > (theirs.lettersUntilFirst ?? Int.max) {
        frostboxWorse.append((town.name, ours.lettersUntilFirst, theirs.lettersUntilFirst))
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Letters until first, counting a town never first as its whole name (the user typed it all).
func summary(_ label: String, _ outcomes: [Outcome], lengths: [Int]) {
    let letters = zip(outcomes, lengths).map { Double($0.lettersUntilFirst ?? $1) }
    let shares = zip(letters, lengths).map { $0 / Double($1) * 100 }
    let firstTyped = outcomes.filter(\.firstOnceTyped).count
    print(
        String(
            format: "%@ letters until first: median %.1f, mean %.2f (median %.0f %% of the name, mean %.1f %%); first once typed: %d of %d (%.1f %%)",
            label.padding(toLength: 9, withPad: " ", startingAt: 0) as NSString, median(letters),
            letters.reduce(0, +) / Double(max(letters.count, 1)), median(shares), shares.reduce(0, +) / Double(max(shares.count, 1)),
            firstTyped, outcomes.count, Double(firstTyped) / Double(max(outcomes.count, 1)) * 100))
}

print("database: \(databasePath), \(places.count) places; \(towns.count) towns of \(eligible.count) with ≥ \(minimumPopulation) people, seed \(seed)")
summary("frostbox", frostbox, lengths: lengths)
summary("naive", naive, lengths: lengths)
let better = zip(frostbox, naive).filter { ($0.lettersUntilFirst ?? .max) < ($1.lettersUntilFirst ?? .max) }.count
print("frostbox needs fewer letters for \(better) towns, more for \(frostboxWorse.count), as many for \(towns.count - better - frostboxWorse.count)")
for (name, ours, theirs) in frostboxWorse.prefix(20) {
    print("  more letters: \(name): frostbox \(ours.map(String.init) ?? "never"), naive \(theirs.map(String.init) ?? "never")")
}
