import ProcessKit
import SiteSettings

/// `harness resolve`: the rendering decision a document gives one URL, with provenance.
enum ResolveCommand: HarnessCommand {
    static let name = "resolve"
    static let abstract = "Print the rendering decision a settings document gives a URL."
    static let usage = "harness resolve --document FILE --url URL [--appearance light|dark] [--native-dark] [--now ISO-8601] [--utc-offset ±HH:MM] [--paused-until ISO-8601] [--psl FILE]"
    static let discussion = """
        Prints one JSON object: enabled, theme, reason, scope (the key of the record used, or
        null), source (mode, theme and nativeDarkPolicy each "site" or "default"), and the
        effective mode and nativeDarkPolicy. Schedule times are read at --utc-offset (UTC by
        default); --now defaults to 1970-01-01T00:00:00Z so that output never depends on the clock.
        Reasons: \(DecisionReason.allCases.map(\.rawValue).joined(separator: ", ")).
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(
            arguments,
            options: ["document", "url", "appearance", "now", "utc-offset", "paused-until", "psl"],
            flags: ["native-dark"])
        try args.noPositionals()
        guard let path = args.value("document") else { throw .usage("missing '--document FILE'") }
        guard let url = args.value("url") else { throw .usage("missing '--url URL'") }
        var context = DecisionContext(now: 0)
        if let text = args.value("appearance") {
            guard let appearance = Appearance(rawValue: text) else {
                throw .usage("'--appearance' expects light or dark, not '\(text)'")
            }
            context.appearance = appearance
        }
        if let text = args.value("now") { context.now = try Inputs.time(text, option: "now") }
        if let text = args.value("utc-offset") {
            guard let offset = Timestamp.utcOffsetMinutes(text) else {
                throw .usage("'--utc-offset' expects ±HH:MM, not '\(text)'")
            }
            context.utcOffsetMinutes = offset
        }
        if let text = args.value("paused-until") { context.pausedUntil = try Inputs.time(text, option: "paused-until") }
        context.pageIsNativelyDark = args.flag("native-dark")

        let suffixes = try Inputs.suffixes(args)
        let document = try Inputs.document(path, suffixes: suffixes).document
        let decision = Resolver(document: document, suffixes: suffixes).decide(url: url, context: context)
        Terminal.out(JSONWriter.pretty(decision.json))
        return 0
    }
}
