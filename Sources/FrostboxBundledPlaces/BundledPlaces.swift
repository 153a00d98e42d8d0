/// The GeoNames extract that ships inside the `frostbox` binary: 2,305 Nordic towns
/// (`data/geonames/nordic-cities1000.txt`, CC BY 4.0, GeoNames), as a deflated ZIP archive
/// compiled into this module, so that `serve` seeds place search from any working directory
/// and from a binary copied alone to another host.
///
/// The archive is made by `tools/bundled-places/generate.py`; a test checks that it holds
/// exactly the text file in `data/geonames/`. Compressed, it costs the binary ~140 KB and the
/// build a third of what the plain text would.
public enum BundledPlaces {
    /// The archive's file name: its `.zip` suffix tells the GeoNames reader how to open it.
    public static let archiveName = "nordic-cities1000.zip"
    /// How many places the extract holds (each of its rows is a valid place).
    public static let placeCount = 2_305
    /// The countries its places lie in (ISO 3166-1 alpha-2), and their names.
    public static let countries = ["DK": "Denmark", "EE": "Estonia", "FI": "Finland", "IS": "Iceland", "NO": "Norway", "SE": "Sweden"]
    /// The ZIP archive's bytes (one entry, `nordic-cities1000.txt`).
    public static var archive: [UInt8] { PackageResources.nordic_cities1000_zip }
}
