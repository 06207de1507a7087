/// The rules of the compiled-in Public Suffix List as the list writes them (`com`, `*.ck`,
/// `!www.ck`), labels canonical (lower case, `xn--` A-labels). Data only: it says nothing of how
/// a host is matched, so that a second reading of the publicsuffix.org algorithm can share the
/// list without sharing `PublicSuffixList`'s lookup.
package enum PublicSuffixRules {
    /// Every rule of `PublicSuffixData`, in the order of its key lines.
    package static var embedded: [String] {
        var rules: [String] = []
        PublicSuffixData.text.withUTF8Buffer { text in
            // Key lines until the table: a flag digit, the key, a newline. The flag is a bit
            // set: 1 the key is a rule, 2 "*.key" is one, 4 "!key" is one.
            var start = 0
            while start < PublicSuffixData.tableOffset {
                var end = start
                while text[end] != UInt8(ascii: "\n") { end += 1 }
                let flags = Int(text[start]) - Int(UInt8(ascii: "0"))
                let key = String(decoding: text[(start + 1)..<end], as: UTF8.self)
                if flags & 1 != 0 { rules.append(key) }
                if flags & 2 != 0 { rules.append("*." + key) }
                if flags & 4 != 0 { rules.append("!" + key) }
                start = end + 1
            }
        }
        return rules
    }
}
