/// Where two traces of the same run part ways, told so that a person can see why.
enum TraceComparison {
    /// Nothing when the traces are equal line for line; otherwise the number of the first line
    /// that differs (from 1), the lines both traces share just before it, and a few lines of
    /// each from there (or where one of them ends).
    static func firstDifference(_ left: [String], _ right: [String], names: (String, String),
                                before: Int = 8, after: Int = 4) -> String? {
        guard left != right else { return nil }
        let index = zip(left, right).prefix { $0 == $1 }.count
        var text = "the traces differ from line \(index + 1) (\(names.0): \(left.count) lines, \(names.1): \(right.count) lines)\n"
        text += "  both, before it:\n"
        for line in left[max(0, index - before)..<index] { text += "    \(line)\n" }
        for (name, lines) in [(names.0, left), (names.1, right)] {
            text += "  \(name), from line \(index + 1):\n"
            let shown = lines[index..<min(lines.count, index + after)]
            if shown.isEmpty { text += "    (the trace ends)\n" }
            for line in shown { text += "    \(line)\n" }
        }
        return text
    }
}
