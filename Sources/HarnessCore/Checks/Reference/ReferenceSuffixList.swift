import SiteSettings

/// The Public Suffix List read the way publicsuffix.org states its algorithm, for the reference
/// decision: a rule matches a host when each of its labels equals the host's label in the same
/// place from the right (`*` equals any one label); an exception rule that matches prevails,
/// else the matching rule with the most labels, else `*`. The public suffix is what the
/// prevailing rule matched (an exception rule's minus its leftmost label), and the registrable
/// domain is the public suffix plus the label before it. It shares only the list's rules with
/// the product (`PublicSuffixRules`), not the product's lookup.
struct ReferenceSuffixList: Sendable {
    private var rules: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// The compiled-in list, read once.
    static let embedded = ReferenceSuffixList(rules: PublicSuffixRules.embedded)

    /// Rules as the list writes them (`com`, `*.ck`, `!www.ck`), already canonical.
    init(rules: [String]) {
        for rule in rules {
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                self.rules.insert(rule)
            }
        }
    }

    /// Reads a list in the publicsuffix.org `.dat` format: a rule is the first word of a line,
    /// `//` starts a comment line. Labels are lower-cased and Unicode ones punycoded.
    init(datText text: String) {
        var rules: [String] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first, !word.hasPrefix("//") else { continue }
            let exception = word.hasPrefix("!")
            let labels = word.dropFirst(exception ? 1 : 0).split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
                let lower = label.lowercased()
                guard lower.unicodeScalars.contains(where: { !$0.isASCII }), let encoded = ReferencePunycode.encode(Array(lower.unicodeScalars)) else { return lower }
                return "xn--" + encoded
            }
            rules.append((exception ? "!" : "") + labels.joined(separator: "."))
        }
        self.init(rules: rules)
    }

    /// The number of labels of the host's public suffix.
    func publicSuffixLabels(of labels: [Substring]) -> Int {
        var longest = 0
        var exception: Int?
        for count in 1...labels.count {
            let name = labels.suffix(count).joined(separator: ".")
            if exceptions.contains(name) { exception = max(exception ?? 0, count) }
            if rules.contains(name) { longest = max(longest, count) }
            if count >= 2, wildcards.contains(labels.suffix(count - 1).joined(separator: ".")) { longest = max(longest, count) }
        }
        if let exception { return exception - 1 }
        // No rule: the prevailing rule is `*`, the last label.
        return max(longest, 1)
    }

    /// The registrable domain of a canonical host name, or nil when the host is itself a public suffix.
    func registrableDomain(of host: String) -> String? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let suffix = publicSuffixLabels(of: labels)
        guard labels.count > suffix else { return nil }
        return labels.suffix(suffix + 1).joined(separator: ".")
    }
}
