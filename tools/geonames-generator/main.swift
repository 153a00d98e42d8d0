// geonames-generator: writes a synthetic GeoNames "geoname" dump (19 tab-separated columns,
// UTF-8, no quoting) shaped like allCountries.txt, for import and search benchmarks.
//
//   geonames-generator [--rows 13400000] [--seed 1] [--dirty-every 100000] [--output FILE]
//
// Realism that matters to the importer and the index: places cluster around "towns"
// (clustered coordinates, dense and sparse areas, a few on the antimeridian and near the
// poles); names in Latin with diacritics, Cyrillic, Greek, Arabic, Han, Hangul and
// Devanagari; 3–8 alternate names (other scripts, variants with hyphens, apostrophes and
// quotes); about 40 % settlements and admin areas; populations log-distributed, a few of
// them beyond 32 bits; one dirty row every `--dirty-every` rows, of every kind in turn.
// The output is a pure function of the arguments.

import Foundation
import FrostboxCore

extension SplitMix64 {
    /// A standard normal number (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(unit(), 1e-12)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * unit())
    }
}

// Syllables rendered per script: the same index in every table is "the same sound", so a
// name has consistent Latin, ASCII and foreign renderings.
let latin = [
    "ka", "ki", "ku", "ke", "ko", "sa", "si", "su", "se", "so", "ta", "ti", "tu", "te", "to", "na", "ni", "nu",
    "ne", "no", "ha", "hi", "hu", "he", "ho", "ma", "mi", "mu", "me", "mo", "ra", "ri", "ru", "re", "ro", "la", "li",
    "lu", "le", "lo", "va", "vi", "vu", "ve", "vo", "ber", "burg", "dorf", "stad", "holm", "lin", "ton", "vik", "by",
    "mar", "pel", "gra", "dan", "sel", "kor", "jar", "ven", "ul", "an", "en", "is", "os", "al", "el", "ar",
]
let diacritic = [
    "kä", "kí", "kü", "kë", "kö", "ša", "sí", "sü", "sè", "sø", "ta", "tí", "tû", "té", "tô", "ña", "ni", "nú",
    "ně", "nõ", "ha", "hî", "hü", "hé", "hø", "må", "mi", "mü", "mę", "mó", "ra", "ří", "rů", "ré", "rö", "ła", "lí",
    "lu", "lé", "lô", "vä", "vì", "vu", "ve", "vö", "bér", "burg", "dörf", "städ", "hölm", "lin", "tön", "vík", "bý",
    "mar", "pél", "grå", "dän", "sel", "kór", "jär", "vén", "ül", "án", "ën", "ís", "ós", "ål", "él", "ær",
]
let cyrillic = [
    "ка", "ки", "ку", "ке", "ко", "са", "си", "су", "се", "со", "та", "ти", "ту", "те", "то", "на", "ни", "ну",
    "не", "но", "ха", "хи", "ху", "хе", "хо", "ма", "ми", "му", "ме", "мо", "ра", "ри", "ру", "ре", "ро", "ла", "ли",
    "лу", "ле", "ло", "ва", "ви", "ву", "ве", "во", "бер", "бург", "дорф", "штадт", "хольм", "лин", "тон", "вик", "бю",
    "мар", "пель", "гра", "дан", "сель", "кор", "яр", "вен", "ул", "ан", "ен", "ис", "ос", "ал", "ел", "ар",
]
let greek = [
    "κα", "κι", "κου", "κε", "κο", "σα", "σι", "σου", "σε", "σο", "τα", "τι", "του", "τε", "το", "να", "νι", "νου",
    "νε", "νο", "χα", "χι", "χου", "χε", "χο", "μα", "μι", "μου", "με", "μο", "ρα", "ρι", "ρου", "ρε", "ρο", "λα", "λι",
    "λου", "λε", "λο", "βα", "βι", "βου", "βε", "βο", "μπερ", "μπουργκ", "ντορφ", "σταντ", "χολμ", "λιν", "τον", "βικ", "μπι",
    "μαρ", "πελ", "γκρα", "νταν", "σελ", "κορ", "γιαρ", "βεν", "ουλ", "αν", "εν", "ις", "ος", "αλ", "ελ", "αρ",
]
let arabic = [
    "كا", "كي", "كو", "كه", "كو", "سا", "سي", "سو", "سه", "سو", "تا", "تي", "تو", "ته", "تو", "نا", "ني", "نو",
    "نه", "نو", "ها", "هي", "هو", "هه", "هو", "ما", "مي", "مو", "مه", "مو", "را", "ري", "رو", "ره", "رو", "لا", "لي",
    "لو", "له", "لو", "فا", "في", "فو", "فه", "فو", "بر", "بورغ", "دورف", "شتات", "هولم", "لين", "تون", "فيك", "بي",
    "مار", "بل", "غرا", "دان", "سل", "كور", "يار", "فن", "ول", "ان", "ين", "يس", "وس", "ال", "ال", "ار",
]
let han = [
    "卡", "基", "库", "克", "科", "萨", "西", "苏", "塞", "索", "塔", "提", "图", "特", "托", "纳", "尼", "努",
    "内", "诺", "哈", "希", "胡", "赫", "霍", "马", "米", "穆", "梅", "莫", "拉", "里", "鲁", "雷", "罗", "拉", "利",
    "卢", "莱", "洛", "瓦", "维", "武", "韦", "沃", "贝", "堡", "多夫", "施塔特", "霍尔姆", "林", "顿", "维克", "比",
    "马", "佩", "格拉", "丹", "塞", "科", "亚", "文", "乌", "安", "恩", "伊斯", "奥斯", "阿", "埃", "阿尔",
]
let hangul = [
    "카", "키", "쿠", "케", "코", "사", "시", "수", "세", "소", "타", "티", "투", "테", "토", "나", "니", "누",
    "네", "노", "하", "히", "후", "헤", "호", "마", "미", "무", "메", "모", "라", "리", "루", "레", "로", "라", "리",
    "루", "레", "로", "바", "비", "부", "베", "보", "베르", "부르크", "도르프", "슈타트", "홀름", "린", "톤", "비크", "비",
    "마르", "펠", "그라", "단", "셀", "코르", "야르", "벤", "울", "안", "엔", "이스", "오스", "알", "엘", "아르",
]
let devanagari = [
    "का", "की", "कु", "के", "को", "सा", "सी", "सु", "से", "सो", "टा", "टी", "टु", "टे", "टो", "ना", "नी", "नु",
    "ने", "नो", "हा", "ही", "हु", "हे", "हो", "मा", "मी", "मु", "मे", "मो", "रा", "री", "रु", "रे", "रो", "ला", "ली",
    "लु", "ले", "लो", "वा", "वी", "वु", "वे", "वो", "बेर", "बुर्ग", "डोर्फ़", "श्टाट", "होल्म", "लिन", "टन", "विक", "बी",
    "मार", "पेल", "ग्रा", "डान", "सेल", "कोर", "यार", "वेन", "उल", "आन", "एन", "इस", "ओस", "अल", "एल", "आर",
]
let scripts = [diacritic, cyrillic, greek, arabic, han, hangul, devanagari]

let countries = [
    "FI", "SE", "NO", "DE", "FR", "ES", "PL", "RU", "CN", "KR", "IN", "EG", "GR", "BR", "US", "CA", "AU", "NZ",
    "FJ", "JP", "VN", "TR", "IT", "GB", "MX", "AR", "ZA", "KE", "NG", "ID",
]
let zones = [
    "Europe/Helsinki", "Europe/Stockholm", "Europe/Oslo", "Europe/Berlin", "Europe/Paris", "Europe/Madrid",
    "Europe/Warsaw", "Europe/Moscow", "Asia/Shanghai", "Asia/Seoul", "Asia/Kolkata", "Africa/Cairo", "Europe/Athens",
    "America/Sao_Paulo", "America/New_York", "America/Toronto", "Australia/Sydney", "Pacific/Auckland", "Pacific/Fiji",
    "Asia/Tokyo", "Asia/Ho_Chi_Minh", "Europe/Istanbul", "Europe/Rome", "Europe/London", "America/Mexico_City",
    "America/Argentina/Buenos_Aires", "Africa/Johannesburg", "Africa/Nairobi", "Africa/Lagos", "Asia/Jakarta",
]
let classes: [(String, [String], Int)] = [
    ("P", ["PPL", "PPL", "PPL", "PPLX", "PPLA2", "PPLL"], 37), ("A", ["ADM2", "ADM3", "ADM1"], 3),
    ("H", ["STM", "LK", "PND", "BAY"], 25), ("T", ["MT", "HLL", "ISL", "PT"], 20), ("S", ["FRM", "SCH", "CH"], 8),
    ("L", ["PRK", "LCTY", "AREA"], 4), ("V", ["FRST"], 1), ("R", ["RD"], 1), ("U", ["SMU"], 1),
]
let decorations = ["%@-by", "Nowy %@", "Saint-%@", "%@ kylä", "Old %@", "%@'s Bay", "\"%@\"", "%@ Station", "L'%@", "%@ an der See"]

struct Cluster {
    let latitude: Double
    let longitude: Double
    let spread: Double
    let script: Int
    let country: Int
    let weight: Double
}

func makeClusters(_ rng: inout SplitMix64, count: Int) -> [Cluster] {
    var clusters: [Cluster] = []
    for index in 0..<count {
        var latitude = rng.unit() * 125 - 55
        var longitude = rng.unit() * 360 - 180
        // A few clusters on purpose at the antimeridian and in the far north and south.
        if index % 997 == 0 { longitude = rng.unit() < 0.5 ? 179.99 : -179.99 }
        if index % 1999 == 0 { latitude = rng.unit() < 0.5 ? 89.9 : -89.9 }
        let country = rng.below(countries.count)
        clusters.append(
            Cluster(
                latitude: latitude, longitude: longitude, spread: 0.02 + rng.unit() * rng.unit() * 0.6,
                script: rng.below(scripts.count + 4) % (scripts.count + 4), country: country,
                weight: pow(rng.unit(), 3) * 50 + 0.2))
    }
    return clusters
}

struct Writer {
    let file: UnsafeMutablePointer<FILE>
    var buffer: [UInt8] = []

    init(file: UnsafeMutablePointer<FILE>) {
        self.file = file
        buffer.reserveCapacity(1 << 21)
    }

    mutating func append(_ text: String) { buffer.append(contentsOf: text.utf8) }
    mutating func tab() { buffer.append(0x09) }
    mutating func newline() {
        buffer.append(0x0A)
        if buffer.count >= 1 << 20 { flush() }
    }
    mutating func flush() {
        _ = buffer.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
        buffer.removeAll(keepingCapacity: true)
    }
}

func render(_ syllables: [Int], _ table: [String]) -> String {
    var name = ""
    for s in syllables { name += table[s] }
    return name
}

func capitalised(_ text: String) -> String {
    guard let first = text.first else { return text }
    return first.uppercased() + text.dropFirst()
}

func fixed(_ value: Double, _ digits: Int) -> String {
    let scale = pow(10, Double(digits))
    let scaled = Int64((abs(value) * scale).rounded())
    let whole = scaled / Int64(scale)
    var fraction = String(scaled % Int64(scale))
    while fraction.count < digits { fraction = "0" + fraction }
    return (value < 0 && scaled != 0 ? "-" : "") + "\(whole).\(fraction)"
}

// MARK: Arguments

var rows = 13_400_000
var seed: UInt64 = 1
var dirtyEvery = 100_000
var outputPath: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--rows": rows = Int(arguments.next() ?? "") ?? rows
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    case "--dirty-every": dirtyEvery = Int(arguments.next() ?? "") ?? dirtyEvery
    case "--output", "-o": outputPath = arguments.next()
    default:
        FileHandle.standardError.write(Data("usage: geonames-generator [--rows N] [--seed S] [--dirty-every N] [--output FILE]\n".utf8))
        exit(2)
    }
}

var rng = SplitMix64(seed: seed)
let clusterCount = max(rows / 300, 10)
let clusters = makeClusters(&rng, count: clusterCount)
let cumulative: [Double] = clusters.reduce(into: []) { sums, cluster in sums.append((sums.last ?? 0) + cluster.weight) }
let total = cumulative.last ?? 0

@MainActor func pickCluster(_ rng: inout SplitMix64) -> Cluster {
    let target = rng.unit() * total
    var low = 0
    var high = cumulative.count - 1
    while low < high {
        let mid = (low + high) / 2
        if cumulative[mid] < target { low = mid + 1 } else { high = mid }
    }
    return clusters[low]
}

guard let file = outputPath.map({ fopen($0, "wb") }) ?? fdopen(1, "wb") else {
    FileHandle.standardError.write(Data("cannot open \(outputPath ?? "-")\n".utf8))
    exit(1)
}
var out = Writer(file: file)
var id: Int64 = 1_000_000
let dirtyKinds = 10
var dirtyCount = 0

for row in 0..<rows {
    id += Int64(1 + rng.below(3))
    let cluster = pickCluster(&rng)
    let latitude = min(max(cluster.latitude + rng.gaussian() * cluster.spread, -90), 90)
    var longitude = cluster.longitude + rng.gaussian() * cluster.spread / max(cos(cluster.latitude * .pi / 180), 0.05)
    if longitude > 180 { longitude -= 360 }
    if longitude < -180 { longitude += 360 }
    longitude = min(max(longitude, -180), 180)

    let syllables = (0..<(2 + rng.below(3))).map { _ in rng.below(latin.count) }
    let ascii = capitalised(render(syllables, latin))
    let local = cluster.script < scripts.count ? scripts[cluster.script] : diacritic
    let name = local == diacritic || rng.below(4) == 0 ? capitalised(render(syllables, diacritic)) : render(syllables, local)

    var alternates: [String] = []
    let alternateCount = 3 + rng.below(6)
    for a in 0..<alternateCount {
        switch (a + rng.below(3)) % 4 {
        case 0: alternates.append(render(syllables, scripts[rng.below(scripts.count)]))
        case 1: alternates.append(capitalised(render(syllables, diacritic)))
        case 2:
            let pattern = decorations[rng.below(decorations.count)]
            alternates.append(pattern.replacingPlaceholder(with: ascii))
        default:
            let other = (0..<(1 + rng.below(3))).map { _ in rng.below(latin.count) }
            alternates.append(capitalised(render(other, rng.below(2) == 0 ? latin : diacritic)))
        }
    }
    var seen = Set<String>()
    alternates = alternates.filter { seen.insert($0).inserted }

    var classRoll = rng.below(100)
    var featureClass = classes[0]
    for entry in classes {
        if classRoll < entry.2 {
            featureClass = entry
            break
        }
        classRoll -= entry.2
    }
    let featureCode = featureClass.1[rng.below(featureClass.1.count)]
    var population: Int64 = 0
    if featureClass.0 == "P" && rng.below(100) < 22 || featureClass.0 == "A" && rng.below(100) < 30 {
        population = Int64(pow(10, 1.7 + 5 * pow(rng.unit(), 2.2)))
        if rng.below(200_000) == 0 { population = 4_000_000_000 + Int64(rng.below(4_000_000_000)) }
    }
    let elevation = rng.below(3) == 0 ? String(rng.below(2500)) : ""
    let dem = String(rng.below(3000) - 10)

    var fields = [
        String(id), name, ascii, alternates.joined(separator: ","), fixed(latitude, 5), fixed(longitude, 5),
        featureClass.0, featureCode, countries[cluster.country], "", String(format2(1 + rng.below(20))),
        String(rng.below(900) + 100), "", "", population > 0 ? String(population) : "0", elevation, dem,
        zones[cluster.country], "20\(10 + rng.below(15))-0\(1 + rng.below(9))-1\(rng.below(9))",
    ]

    var raw: [UInt8]?
    if dirtyEvery > 0 && row % dirtyEvery == dirtyEvery / 2 {
        switch dirtyCount % dirtyKinds {
        case 0: fields.removeLast()
        case 1: fields.append("extra")
        case 2: fields[4] = "north"
        case 3: fields[4] = "91.5"
        case 4: fields[5] = "-200.25"
        case 5: fields[14] = "12x"
        case 6: fields[15] = "high"
        case 7: fields[1] = ""
        case 8: fields[0] = "id\(id)"
        default:
            var bytes = Array(fields.joined(separator: "\t").utf8)
            bytes.insert(0xFF, at: bytes.count / 3)
            raw = bytes
        }
        dirtyCount += 1
    }
    if let raw {
        out.buffer.append(contentsOf: raw)
    } else {
        for (index, field) in fields.enumerated() {
            if index > 0 { out.tab() }
            out.append(field)
        }
    }
    out.newline()
}
out.flush()
fclose(file)
FileHandle.standardError.write(Data("wrote \(rows) rows (\(dirtyCount) dirty), ids up to \(id)\n".utf8))

func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

extension String {
    func replacingPlaceholder(with value: String) -> String {
        guard let range = range(of: "%@") else { return self }
        return replacingCharacters(in: range, with: value)
    }
}
