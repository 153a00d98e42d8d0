/// Names people type for regions that GeoNames' tables do not hold: the ISO 3166-2
/// subdivision codes of Canada's provinces and territories and Australia's states and
/// territories (GeoNames codes them by number, `CA.08` for Ontario: people type `on`), and
/// country names in English and other languages for the countries of the bundled extract and
/// Germany (the bundled extract comes without countryInfo, which has one English name per
/// country; an imported allCountries with alternateNames adds the rest through each
/// country's own row).
public enum RegionNames {
    /// ISO 3166-2 subdivision codes (the part after `CA-`, `AU-`) by GeoNames admin1 code.
    public static let subdivisionCodes: [String: String] = [
        "CA.01": "AB", "CA.02": "BC", "CA.03": "MB", "CA.04": "NB", "CA.05": "NL", "CA.07": "NS", "CA.08": "ON",
        "CA.09": "PE", "CA.10": "QC", "CA.11": "SK", "CA.12": "YT", "CA.13": "NT", "CA.14": "NU",
        "AU.01": "ACT", "AU.02": "NSW", "AU.03": "NT", "AU.04": "QLD", "AU.05": "SA", "AU.06": "TAS", "AU.07": "VIC",
        "AU.08": "WA",
    ]

    /// Country names in English, the country's own languages, its neighbours' and the large
    /// European ones, by ISO 3166-1 alpha-2 code. Written as each language writes them;
    /// folding makes `Dänemark` match `danemark`.
    public static let countryNames: [String: [String]] = [
        "DK": [
            "Denmark", "Danmark", "Dänemark", "Danemark", "Dinamarca", "Danimarca", "Dania", "Tanska", "Taani", "Danmörk", "Denemarken",
            "Дания",
        ],
        "EE": ["Estonia", "Eesti", "Estland", "Estonie", "Estônia", "Viro", "Eistland", "Эстония"],
        "FI": ["Finland", "Suomi", "Finnland", "Finlande", "Finlandia", "Finlândia", "Soome", "Финляндия"],
        "IS": ["Iceland", "Ísland", "Island", "Islande", "Islandia", "Islanda", "Islândia", "Islanti", "IJsland", "Исландия"],
        "NO": [
            "Norway", "Norge", "Noreg", "Norga", "Norwegen", "Norvège", "Noruega", "Norvegia", "Norwegia", "Norja", "Noregur",
            "Noorwegen", "Норвегия",
        ],
        "SE": [
            "Sweden", "Sverige", "Schweden", "Suède", "Suecia", "Svezia", "Suécia", "Szwecja", "Ruotsi", "Rootsi", "Svíþjóð", "Zweden",
            "Швеция",
        ],
        "DE": [
            "Germany", "Deutschland", "Allemagne", "Alemania", "Germania", "Alemanha", "Niemcy", "Saksa", "Saksamaa", "Tyskland",
            "Þýskaland", "Duitsland", "Германия",
        ],
    ]
}
