import Foundation

/// The aligned tables the command line prints (`frostbox runs`, `frostbox verify`): a header
/// and rows, each column as wide as its widest cell, two spaces apart.
public enum TextTable {
    /// One line for the header, then one per row, in order.
    public static func lines(_ headers: [String], _ rows: [[String]]) -> [String] {
        let widths = headers.indices.map { column in ([headers] + rows).map { $0[column].count }.max() ?? 0 }
        return ([headers] + rows).map { cells in
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
    }
}
