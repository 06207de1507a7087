import SiteSettings

/// `harness scope`: the keys a URL's records would have.
enum ScopeCommand: HarnessCommand {
    static let name = "scope"
    static let abstract = "Print the page, host and domain keys of a URL."
    static let usage = "harness scope URL [--psl FILE]"
    static let discussion = """
        Prints one JSON object with page, host and domain. domain is null when the host has no
        registrable domain: a public suffix itself, an IP address, or a single label.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["psl"], flags: [])
        let url = try args.single("URL")
        let suffixes = try Inputs.suffixes(args)
        let address: PageAddress
        switch PageAddress.parse(url) {
        case .success(let parsed): address = parsed
        case .failure(let error): throw .invalidInput("\(url): \(error)")
        }
        Terminal.out(JSONWriter.pretty(.object([
            "page": .string(address.pageKey.text),
            "host": .string(address.host.text),
            "domain": address.domainKey(suffixes: suffixes).map { .string($0.text) } ?? .null,
        ])))
        return 0
    }
}
