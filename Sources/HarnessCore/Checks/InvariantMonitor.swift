import ProcessKit
import SiteSettings

/// The invariants checked at steps, in one place (the liveness ones, 6 to 8 and 11, are
/// `LivenessChecks`; 9 is the process table's; 12, the reference decision, is `ReferenceCheck`,
/// asked wherever a tab is found converged; 14, Safari's rules, is `SafariRules`, which watches
/// every input the simulation gives Safari's machine). The simulation tells it what happens as it
/// happens (a background starting with a cache, a tab asking, a native reply arriving, a
/// process dying), so that invariant 5 and invariant 1 at the moment of a death are caught
/// when they break; the runner tells it the user's edits, and asks after every step (1, 3, 5,
/// 10) and once the run is healed (with the oracle and convergence, 2 and 4) what is broken.
/// Each problem is reported once, where it is first seen.
package final class InvariantMonitor {
    /// An edit as the user made it, for the oracle.
    struct UserEdit: Sendable {
        enum Target: Sendable {
            case defaults
            case site(String)
            /// A popup change: the record the background says it used. Until it answers, any
            /// of `possible`, the scopes of the popup's page: the view the user saw may be out
            /// of date (the background frozen, Safari away, a new background that has just
            /// learnt of the popup), so only the background can tell which it chose.
            case popupSite(possible: [String])
        }
        /// The number the simulation gave the edit, to find its answer; nil for an edit whose
        /// answer the user saw at once (`answer`).
        var number: Int?
        var answer: Oracle.Answer = .unknown
        var origin: Oracle.Origin
        var at: EpochMillis
        var target: Target
        /// Field names and new values (nil clears the field).
        var values: [String: String?]
        /// The extension instance that made a popup edit: its profile, or `legacy`.
        var source: String?
        /// The scenario's line that made it, if a scenario did.
        var line: Int?
    }

    private let trace: Trace
    /// Invariant 12's reference decision, which keeps what it read of each URL per document.
    let reference = ReferenceCheck()
    /// Invariant 10 is excused: a change notification may have been lost with its handler.
    private var appExcused = false
    /// Whether the design's invariants are checked; off, only those every extension keeps
    /// (`Step.anyDesignInvariants`): a probe runs an extension of any design.
    var checksDesign = true
    /// Problems caught as they happened (invariants 5, and 1 when a process dies or the power
    /// fails), in order.
    private(set) var violations: [Violation] = []
    private var reportedViolations = 0
    private var reported: Set<Violation> = []

    /// Invariant 5's watch: whether the current background found a cache in storage when it
    /// started, whether it has sent any decision, and the tab it owes an answer from the cache.
    private var startedWithCache = false
    private var answeredSinceStart = false
    /// The current background has taken a native reply: what it answers now may be the reply's.
    private var repliedSinceStart = false
    private var owedFromCache: String?
    /// Invariant 5 also needs the cache to last: for each profile, the save of `storage.local`
    /// that followed a valid snapshot (or the starting cache), which its next background must
    /// find. A read of the store that failed, or a power cut, makes no such promise.
    private var cacheSaved: [String: String] = [:]
    /// The current background took a valid snapshot: its next save of `storage.local` keeps it.
    private var snapshotTaken: String?

    /// The oracle before any edit, the edits the user made, and for invariant 3 after each step
    /// the oracle of the edits whose record is known for good (others are tried again).
    private var startOracle = InvariantMonitor.noEdits
    private var edits: [UserEdit] = []
    private var givenOracle = InvariantMonitor.noEdits
    private var givenUpTo = 0
    private var undecided: [Int] = []
    /// How many edits `givenOracle` holds, and what invariant 3 last compared.
    private var givenRecorded = 0
    private struct StrayCheck: Equatable {
        var bytes: [UInt8]
        var recorded: Int
        var undecided: [Int]
    }
    private var lastStrayCheck: StrayCheck?

    /// The oracle of the built-in defaults, until the run says what it starts from (made once).
    private static let noEdits = Oracle(start: nil)

    init(trace: Trace) { self.trace = trace }

    /// Checked after every step, the files are decoded again only when they changed
    /// (`DocumentCodec` and `LocalStorage` remember what they last read).
    private func decodeDocument(_ bytes: [UInt8]) -> Result<SettingsDocument, DocumentError> {
        Result { () throws(DocumentError) in try DocumentCodec.decode(bytes).document }
    }

    // MARK: - What happens

    /// A violation caught as it happened, recorded in the trace too. With the design's checks
    /// off (a probe), only the invariants every extension keeps are.
    func caught(_ violation: Violation, now: EpochMillis) {
        guard checks(violation) else { return }
        violations.append(violation)
        trace.record(now, "check", violation.description)
    }

    /// A problem that is not an invariant of the product (a process that could not start).
    func record(_ problem: String) { violations.append(Violation(.run, problem)) }

    func backgroundStarted(_ label: String, profile: String, withCache: Bool, now: EpochMillis) {
        startedWithCache = withCache
        answeredSinceStart = false
        repliedSinceStart = false
        owedFromCache = nil
        snapshotTaken = nil
        if !withCache, let saved = cacheSaved[profile] {
            caught(Violation(.invariant(5), "\(label) started with no cache in storage.local, though \(saved)"), now: now)
            cacheSaved[profile] = nil
        }
    }

    /// The background's read of its storage failed: it has no cache to answer from, and waits
    /// for a snapshot as a background with none does (invariant 6 still bounds the wait).
    func cacheUnreadable(profile: String) {
        startedWithCache = false
        owedFromCache = nil
        cacheSaved[profile] = nil
        snapshotTaken = nil
    }

    /// The store starts with a cache the scenario planted.
    func cacheStored(profile: String) { cacheSaved[profile] = "the scenario stored one at the start" }

    /// The current background took a valid snapshot (`what` says which, and when).
    func snapshotTaken(_ what: String) { snapshotTaken = what }

    /// The current background renamed a new `storage.local` into place.
    func localSaved(profile: String, by label: String, at time: @autoclosure () -> String) {
        if let snapshot = snapshotTaken { cacheSaved[profile] = "\(label) saved one at \(time()), after \(snapshot)" }
    }

    /// The power failed: what was saved but not flushed may be gone.
    func cachesMayBeLost() {
        cacheSaved = [:]
        snapshotTaken = nil
    }

    /// A started background took a tab's request for a decision.
    func backgroundTook(requestFrom tab: String) {
        if startedWithCache, !answeredSinceStart, owedFromCache == nil { owedFromCache = tab }
    }

    /// Whether a decision for `tab` now would be the first answer of a background that started
    /// with a cache: the one the cache gives (invariant 5).
    func owesAnAnswerFromItsCache(to tab: String) -> Bool { startedWithCache && !repliedSinceStart && tab == owedFromCache }

    func decisionSent(to tab: String) {
        answeredSinceStart = true
        if tab == owedFromCache { owedFromCache = nil }
    }

    /// The tab no longer needs an answer (it closed), or nobody does (the background is gone
    /// with its profile, or with the power).
    func noAnswerOwed(by tab: String? = nil) {
        if tab == nil || tab == owedFromCache { owedFromCache = nil }
    }

    /// Invariant 5: a native reply reaches a background that started with a cache before it
    /// answered the tab that asked.
    func nativeReplyArrives(incarnation: Int, now: EpochMillis) {
        repliedSinceStart = true
        guard let tab = owedFromCache else { return }
        caught(Violation(.invariant(5), "background#\(incarnation) started with a cache but took a native reply before answering tab \(tab)"), now: now)
        owedFromCache = nil
    }

    /// Invariant 1 at the moment a process dies or the power fails, before another process can
    /// repair anything: the shared document and the stored caches our processes left must parse.
    func checkWhatWasLeft(_ event: String, in simulation: Simulation) {
        let planted = simulation.plantedDamage
        var problems: [String] = []
        if let bytes = simulation.files.containerFile(FileContainer.documentName), bytes != planted, (try? DocumentCodec.decode(bytes)) == nil {
            problems.append("the shared document is torn")
        }
        if let bytes = simulation.files.containerFile(FileContainer.previousName), bytes != planted, (try? DocumentCodec.decode(bytes)) == nil {
            problems.append("the last good copy is torn")
        }
        let local = RunFiles.localStorageName
        for (profile, bytes) in simulation.files.storageFiles(local, profiles: simulation.safari.profiles)
            where LocalStorage.read(bytes) == nil {
            problems.append("profile \(profile)'s \(local) is torn")
        }
        for problem in problems { caught(Violation(.invariant(1), "\(problem) when \(event)"), now: simulation.now) }
    }

    // MARK: - The user's edits

    /// The shared document when the run begins, for the oracle.
    func start(from oracle: Oracle) {
        startOracle = oracle
        givenOracle = oracle
    }

    func userEdited(_ edit: UserEdit) { edits.append(edit) }

    /// The oracle with every edit so far. A popup change is stamped with the time of the
    /// user's action; the app's with the time the app took it (it may have been busy).
    func oracle(_ simulation: Simulation) -> Oracle {
        var oracle = startOracle
        for edit in edits { record(edit, in: &oracle, simulation) }
        return oracle
    }

    /// Records an edit, unless the record it went to cannot be told.
    private func record(_ edit: UserEdit, in oracle: inout Oracle, _ simulation: Simulation) {
        var at = edit.at
        if let number = edit.number, let taken = simulation.edits.appTimes[number] { at = taken }
        guard let owner = owner(of: edit, simulation) else {
            // Its record cannot be told: each of its page's records may or may not hold it.
            if case .popupSite(let possible) = edit.target {
                for key in possible {
                    var values: [Oracle.Field: String?] = [:]
                    for (name, value) in edit.values { values[Oracle.site(key, name)] = value }
                    oracle.record(number: nil, answer: .unknown, at: at, origin: edit.origin, source: edit.source, values: values, line: edit.line)
                }
            }
            return
        }
        var values: [Oracle.Field: String?] = [:]
        for (name, value) in edit.values { values[owner.key.map { Oracle.site($0, name) } ?? Oracle.defaults(name)] = value }
        oracle.record(number: edit.number, answer: edit.answer, at: at, origin: edit.origin, source: edit.source, values: values, line: edit.line)
    }

    /// The record an edit went to (`key` nil: the defaults); none yet for a popup change the
    /// background has not answered (see `possible`).
    private func owner(of edit: UserEdit, _ simulation: Simulation) -> (key: String?, Void)? {
        switch edit.target {
        case .defaults: return (nil, ())
        case .site(let key): return (key, ())
        case .popupSite:
            return edit.number.flatMap { simulation.edits.popupScopes[$0] }.map { ($0, ()) }
        }
    }

    /// Invariant 3 at the cost of the edits since the last check. The same document read against
    /// the same edits gives the problems already reported, so it is not compared again.
    private func strayValues(in document: SettingsDocument, bytes: [UInt8], _ simulation: Simulation) -> [Violation] {
        for index in givenUpTo..<edits.count { undecided.append(index) }
        givenUpTo = edits.count
        undecided.removeAll { index in
            guard owner(of: edits[index], simulation) != nil else { return false }
            record(edits[index], in: &givenOracle, simulation)
            givenRecorded += 1
            return true
        }
        let key = StrayCheck(bytes: bytes, recorded: givenRecorded, undecided: undecided)
        if key == lastStrayCheck { return [] }
        lastStrayCheck = key
        // An unanswered popup change may be on any record of its page.
        var extra: [Oracle.Field: Set<String?>] = [:]
        for index in undecided {
            guard case .popupSite(let possible) = edits[index].target else { continue }
            for key in possible {
                for (name, value) in edits[index].values { extra[Oracle.site(key, name), default: []].insert(value) }
            }
        }
        return givenOracle.strayValues(in: document, alsoGiven: extra)
    }

    // MARK: - Checks

    /// What is broken now and was not reported before: invariants 1, 3, 5 and 10, and once the
    /// run is healed 2, 4 and 12 too (and that virtual time never ran backwards).
    func newProblems(_ simulation: Simulation, healed: Bool) -> [Violation] {
        problems(simulation, healed: healed).filter { checks($0) && reported.insert($0).inserted }
    }

    /// Whether the run reports `violation`: every one, unless the design's checks are off.
    private func checks(_ violation: Violation) -> Bool {
        guard !checksDesign, case .invariant(let number) = violation.property else { return true }
        return Step.anyDesignInvariants.contains(number)
    }

    private func problems(_ simulation: Simulation, healed: Bool) -> [Violation] {
        var problems = Array(violations.dropFirst(reportedViolations))
        reportedViolations = violations.count
        let files = fileProblems(simulation, healed: healed)
        problems += files.problems
        let document = files.document
        if let document, let bytes = files.bytes { problems += strayValues(in: document, bytes: bytes, simulation) }
        if let document, let behind = appBehind(document, simulation) { problems.append(behind) }
        guard healed else { return problems }
        if let backwards = simulation.trace.log.firstStepBackwards {
            // Not one of the five: the harness's own clock must never run backwards.
            problems.append(Violation(.run, "virtual time ran backwards: \(backwards)"))
        }
        if let document {
            let lost = oracle(simulation).check(document, answers: simulation.edits.answers)
            // Which write may have left the document as it is: the last process to reach its
            // rename (it may have been stopped there).
            let log = simulation.trace.log
            let lastWrite = log.entries.last { $0.what == "yield rename" }.map { "; \($0.process) last reached its rename at \(log.time($0.time))" } ?? ""
            problems += lost.map { $0.property == .invariant(2) ? Violation(.invariant(2), $0.message + lastWrite) : $0 }
            let converged = ExpectationChecker.convergenceProblems(simulation)
            problems += converged.problems.map { Violation(.invariant(4), $0) } + converged.unlikeReference
        } else if simulation.edits.answers.values.contains(true) {
            problems.append(Violation(.invariant(2), "edits were saved but there is no shared document"))
        }
        return problems
    }

    /// A handler died mid-request, perhaps after its write and before its notification, or a
    /// storage step of the app or a handler failed (faults the scenario chose): until the app
    /// next shows the document, invariant 10 excuses it.
    func appMayMissAChange() { appExcused = true }

    /// Invariant 10: a running app that is not suspended shows the shared document as it is by
    /// the end of every step: after a write by anyone, a Darwin notification reaches it, or it
    /// wrote the document itself. Excused while a process waits at a yield point, and after a
    /// handler died mid-request until the app shows the document again.
    private func appBehind(_ document: SettingsDocument, _ simulation: Simulation) -> Violation? {
        // A process waiting at a yield point has not finished: a writer held after its rename
        // has not yet posted its notification, an app held has not yet shown what it read.
        guard simulation.appIsAwake, let app = simulation.app, let view = simulation.appView, simulation.processes.waiting.isEmpty else { return nil }
        let expected = AppView(document)
        guard view != expected else {
            appExcused = false
            return nil
        }
        guard !appExcused else { return nil }
        return Violation(.invariant(10), "\(app.label) shows \(difference(view.json, from: expected.json)), the shared document (revision \(document.revision)) gives "
            + "\(difference(expected.json, from: view.json))")
    }

    /// What the files show (invariants 1, and 4 once healed), and the shared document.
    private struct FileCheck {
        /// The simulated disk's change count (in process), the profiles shown, and what else
        /// the problems depend on: the same again gives the same problems.
        struct Key: Equatable {
            var diskChanges: Int
            var profiles: Int
            var healed: Bool
            var planted: [UInt8]?
        }
        var key: Key?
        var document: SettingsDocument?
        var bytes: [UInt8]?
        var problems: [Violation]
    }
    private var lastFileCheck: FileCheck?

    /// In process, the files are looked at again only when the disk has changed since.
    private func fileProblems(_ simulation: Simulation, healed: Bool) -> FileCheck {
        let key = simulation.transport == .inProcess
            ? FileCheck.Key(diskChanges: simulation.disk.changes, profiles: simulation.safari.profiles.count, healed: healed,
                            planted: simulation.plantedDamage)
            : nil
        if let key, let last = lastFileCheck, last.key == key { return last }
        var problems: [Violation] = []
        let planted = simulation.plantedDamage
        let bytes = simulation.files.containerFile(FileContainer.documentName)
        var document: SettingsDocument?
        if let bytes, bytes != planted {
            switch decodeDocument(bytes) {
            case .success(let decoded): document = decoded
            case .failure(let error): problems.append(Violation(.invariant(1), "the shared document does not parse: \(error)"))
            }
        }
        if let planted, bytes != planted,
           !(1...16).contains(where: { simulation.files.containerFile("settings.damaged-\($0).json") == planted }) {
            problems.append(Violation(.invariant(1), "the damaged shared document was replaced without being set aside"))
        }
        if let previous = simulation.files.containerFile(FileContainer.previousName), previous != planted,
           (try? decodeDocument(previous).get()) == nil {
            problems.append(Violation(.invariant(1), "the last good copy (\(FileContainer.previousName)) does not parse"))
        }
        let localName = RunFiles.localStorageName
        for (profile, bytes) in simulation.files.storageFiles(localName, profiles: simulation.safari.profiles) {
            let owner = profile == Simulation.defaultProfile ? "the background's" : "profile \(profile)'s background's"
            guard let local = LocalStorage.read(bytes) else {
                problems.append(Violation(.invariant(1), "\(owner) \(localName) does not parse"))
                continue
            }
            if healed && !local.outbox.isEmpty {
                // With a healthy handler and each profile in front once, every waiting patch must have gone out.
                problems.append(Violation(.invariant(4), "\(owner) outbox still holds \(local.outbox.count) patch(es) after healing"))
            }
        }
        let check = FileCheck(key: key, document: document, bytes: bytes, problems: problems)
        lastFileCheck = check
        return check
    }
}
