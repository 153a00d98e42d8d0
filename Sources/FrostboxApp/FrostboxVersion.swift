/// The version of this Frostbox build, as `frostbox --version` prints it.
public enum FrostboxVersion {
    /// Semantic version of the release this source tree is heading for.
    public static let current = "0.9.0"
}
