import SiteSettings

/// `harness normalize`: a document as a writer of this version would save it.
enum NormalizeCommand: HarnessCommand {
    static let name = "normalize"
    static let abstract = "Print a settings document in normalized form, or say exactly what is wrong with it."
    static let usage = "harness normalize FILE [--psl FILE]"
    static let discussion = """
        Canonical keys, times in milliseconds, missing defaults filled in, keys sorted. What
        normalization changed is listed on stderr as notes. An invalid document gets an error
        naming its JSON path (exit 1). A document with a newer schemaVersion is read-only to this
        version: it is refused, never rewritten.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["psl"], flags: [])
        let path = try args.single("FILE")
        let suffixes = try Inputs.suffixes(args)
        let decoded = try Inputs.document(path, suffixes: suffixes)
        if decoded.document.isReadOnly {
            throw .invalidInput("\(path): schemaVersion \(decoded.document.schemaVersion) is newer than this version (\(SettingsDocument.currentSchemaVersion)); the document is read-only here and is not rewritten")
        }
        for note in decoded.notes { Terminal.err("note: \(note)\n") }
        Terminal.out(JSONWriter.pretty(DocumentCodec.json(decoded.document)))
        return 0
    }
}
