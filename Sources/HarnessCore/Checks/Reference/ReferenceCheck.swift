import SiteSettings

/// Invariant 12: where a visible tab has converged (it shows what the product's `Resolver`
/// gives over the shared document), what it shows is also what `ReferenceDecision` gives, so
/// that a mistake in working out a decision cannot pass by agreeing with itself. What costs
/// is kept: a URL's candidate keys (reading it, the Public Suffix List) for the run, and its
/// settings (the record chosen) for as long as the document stays the same; time, pause,
/// appearance and the page's dark theme are applied at every check.
final class ReferenceCheck {
    private let suffixes: ReferenceSuffixList
    /// Each URL's keys, most specific first; nil for an unsupported URL.
    private var keys: [String: [String]?] = [:]
    private var document: SettingsDocument?
    private var records: [String: SiteValues] = [:]
    private var settings: [String: ReferenceDecision.Settings?] = [:]

    init(suffixes: ReferenceSuffixList = .embedded) { self.suffixes = suffixes }

    /// The reference's decision for a URL under the shared document and a context.
    func decision(url: String, document: SettingsDocument, context: DecisionContext) -> ReferenceDecision {
        if document != self.document {
            self.document = document
            records = ReferenceDecision.records(of: document)
            settings = [:]
        }
        let found: ReferenceDecision.Settings?
        if let known = settings[url] {
            found = known
        } else {
            let urlKeys: [String]?
            if let known = keys[url] {
                urlKeys = known
            } else {
                urlKeys = ReferenceAddress.read(url).map { ReferenceDecision.keys(of: $0, suffixes: suffixes) }
                keys[url] = urlKeys
            }
            found = ReferenceDecision.settings(keys: urlKeys, records: records, defaults: document.defaults)
            settings[url] = found
        }
        return ReferenceDecision.decide(found, appearance: context.appearance, now: context.now, utcOffsetMinutes: context.utcOffsetMinutes,
                                        pausedUntil: context.pausedUntil, pageIsNativelyDark: context.pageIsNativelyDark)
    }

    /// The failure when `shown`, the decision a converged tab shows, is not the reference's:
    /// the tab and its URL, both decisions, the records the URL could use and the defaults,
    /// and what else the decision read.
    func problem(tab: String, url: String, shows shown: Decision, document: SettingsDocument, context: DecisionContext) -> Violation? {
        difference(url: url, shown: shown, document: document, context: context).map {
            Violation(.invariant(12), "tab \(tab) at \(url) shows \($0.shown), as the product resolves the shared document; the reference gives \($0.reference)")
        }
    }

    /// Where `shown` differs from the reference's decision over `document`: the members that
    /// differ, and the reference's decision with what it read (`named` is the document's name).
    func difference(url: String, shown: Decision, document: SettingsDocument, named: String = "the shared document",
                            context: DecisionContext) -> (shown: String, reference: String)? {
        let reference = decision(url: url, document: document, context: context)
        let product = ReferenceDecision(shown)
        guard !reference.agrees(with: product) else { return nil }
        return (reference.differences(from: product), "\(reference.text) from \(records(url: url, document: document, named: named)); \(inputs(context))")
    }

    /// The records the URL's keys name in the document (as the reference reads its keys) and the defaults.
    private func records(url: String, document: SettingsDocument, named: String) -> String {
        let defaults = document.defaults
        let schedule = ReferenceDecision.time(defaults.schedule.start.minutes) + "-" + ReferenceDecision.time(defaults.schedule.end.minutes)
        var parts = ["\(named) (revision \(document.revision))"]
        if let address = ReferenceAddress.read(url) {
            let records = Dictionary(uniqueKeysWithValues: document.sites.map { ($0.key.text, $0.value.values) })
            let keys = ReferenceDecision.keys(of: address, suffixes: suffixes)
            for (kind, key) in zip(["page", "host", "domain"], keys) {
                parts.append("\(kind) \(key) " + (records[key].map { FieldValues($0).words } ?? "no record"))
            }
            if keys.count < 3 { parts.append("no domain key") }
        } else {
            parts.append("an unsupported URL")
        }
        parts.append("defaults mode=\(defaults.mode.rawValue) theme=\(defaults.theme.rawValue) nativeDarkPolicy=\(defaults.nativeDarkPolicy.rawValue) schedule=\(schedule)")
        return parts.joined(separator: ", ")
    }

    /// The decision's other inputs, in words.
    private func inputs(_ context: DecisionContext) -> String {
        let minute = ReferenceDecision.minuteOfDay(now: context.now, utcOffsetMinutes: context.utcOffsetMinutes)
        let pause = context.pausedUntil.map { $0 > context.now ? "paused for \($0 - context.now) ms more" : "a pause that ended \(context.now - $0) ms ago" } ?? "no pause"
        return "appearance \(context.appearance.rawValue), local time \(ReferenceDecision.time(minute)) (UTC\(context.utcOffsetMinutes == 0 ? "" : "\(context.utcOffsetMinutes)m")), "
            + "\(pause), page \(context.pageIsNativelyDark ? "natively dark" : "not natively dark")"
    }
}
