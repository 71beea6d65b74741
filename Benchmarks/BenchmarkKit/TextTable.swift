/// Rows of cells as aligned text lines: the first two columns (the title
/// and the unit) left-aligned, the figures right-aligned, and a line of
/// dashes under the header row.
enum TextTable {
    /// - Precondition: `rows` holds a header row, and every row as many
    ///   cells as it.
    static func lines(_ rows: [[String]]) -> [String] {
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max()! }
        var lines = rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column < 2 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        lines.insert(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "), at: 1)
        return lines
    }

    /// A side table of `figures` (one of the HTTP or upload workloads'):
    /// a header row titled `heading`, then per figure its title, unit, the
    /// median of each system of `columns` (by recorded name, with its
    /// header), and the gateway's ("ShareLog") speed ratio to each of the
    /// other columns (above 1x the gateway is better: for times and CPU,
    /// the other's value over the gateway's).
    static func gatewayRows(_ figures: [Figure], heading: String, columns: [(system: String, header: String)]) -> [[String]] {
        let others = columns.filter { $0.system != "ShareLog" }
        var rows = [[heading, "unit"] + columns.map(\.header) + others.map { "gateway/\($0.header)" }]
        for figure in figures {
            let values = columns.map { figure.results[$0.system]?.median }
            let ratios = others.map { other -> String in
                guard figure.comparable, let mine = figure.results["ShareLog"]?.median, let theirs = figure.results[other.system]?.median,
                      mine > 0, theirs > 0 else { return "—" }
                return Formatting.ratio(figure.higherIsBetter ? mine / theirs : theirs / mine)
            }
            rows.append([figure.title, figure.unit] + values.map { $0.map(Formatting.value) ?? "—" } + ratios)
        }
        return rows
    }
}
