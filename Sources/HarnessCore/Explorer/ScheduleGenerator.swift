import ProcessKit
import SiteSettings

/// What one explored run may do, chosen per seed (swarm testing): a subset of the kinds of step
/// with a weight each, a subset of the durations time moves by and of the handler's faults, the
/// platform, and how the run starts. Leaving things out is what lets a run get deep into one
/// corner (many popup edits with no app in the way, a handler that keeps failing with nothing to
/// heal it, time that only ever moves past one timeout and never far enough to unload) instead
/// of every run being the same average mix.
package struct SwarmOptions: Equatable, Sendable, CustomStringConvertible {
    enum Kind: String, CaseIterable, Comparable, Sendable {
        case tab, appEdit = "app-edit", app, popup, safari, appearance, background, handler, hold, crash, fail, profile, legacy, time

        static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    var platform: Simulation.Platform
    /// The kinds a run draws its steps from, each with a weight from 1 to 4.
    var weights: [Kind: Int]
    /// How far `advance` moves time, and what `handler` steps may make of the handler (a
    /// healthy handler is always among them).
    var durations: [EpochMillis]
    var handlers: [Simulation.HandlerBehaviour]
    /// Whether the run starts with a shared document, a cache made from an older one, and a
    /// damaged document on disk.
    var sharedStart: Bool
    var staleCache: Bool
    var damaged: Bool
    /// A fault the handler has before the first tab opens, if any (one of `handlers`): a run
    /// that starts with the background unable to reach its document.
    var startingHandler: Simulation.HandlerBehaviour?
    /// A power cut before one of the first flushes of the simulated disk, keeping a seeded
    /// sample of what was not flushed (in process only: real disks are not ours to cut).
    var powerCut: PowerCutPlan?
    /// The system starts a handler's process for each request (`handler fresh`), not keeping
    /// one for the next as it does by default.
    var handlerFresh = false
    /// How long each background's load takes before its scripts run (`background-load-time`):
    /// an event of a type Safari does not hold then (after an install or an update) is answered
    /// with nothing, and one of a type it holds waits for the load's end.
    var backgroundLoadTime: EpochMillis = 0

    /// The options of a seed. Tabs and time are always in: a run needs a tab to ask and time to
    /// pass for any deadline to come due.
    /// With `loadTimes`, a quarter of the seeds give each background's load a time
    /// (`ScheduleGenerator.loadTimes`); without, no seed draws one (nor the random number
    /// for it: the schedules are those of a run that never could).
    static func choose(_ random: inout SeededRandom, loadTimes: Bool = false) -> SwarmOptions {
        let platform: Simulation.Platform = random.chance(1, in: 2) ? .iOS : .macOS
        var weights: [Kind: Int] = [.tab: 1 + random.below(4), .time: 1 + random.below(4)]
        for kind in Kind.allCases where weights[kind] == nil && random.chance(1, in: 2) { weights[kind] = 1 + random.below(4) }
        if weights[.appEdit] == nil && weights[.popup] == nil { weights[random.chance(1, in: 2) ? .appEdit : .popup] = 1 + random.below(4) }
        let durations = ScheduleGenerator.durations.filter { _ in random.chance(1, in: 2) }.nonEmpty
            ?? [ScheduleGenerator.durations[random.below(ScheduleGenerator.durations.count)]]
        let handlers = [Simulation.HandlerBehaviour.healthy] + ScheduleGenerator.handlerFaults.filter { _ in random.chance(1, in: 2) }
        let startingHandler = handlers.count > 1 && random.chance(1, in: 4) ? handlers[1 + random.below(handlers.count - 1)] : nil
        let powerCut = random.chance(1, in: 8) ? PowerCutPlan(.flush(1 + random.below(24)), kept: .sample(UInt64(random.below(1 << 16)))) : nil
        var options = SwarmOptions(platform: platform, weights: weights, durations: durations, handlers: handlers, sharedStart: random.chance(2, in: 3),
                                   staleCache: random.chance(1, in: 2), damaged: random.chance(1, in: 8), startingHandler: startingHandler,
                                   powerCut: powerCut)
        options.handlerFresh = random.chance(1, in: 4)
        if loadTimes && random.chance(1, in: 4) { options.backgroundLoadTime = ScheduleGenerator.loadTimes[random.below(ScheduleGenerator.loadTimes.count)] }
        return options
    }

    /// `platform=ios kinds=app-edit:2,tab:1,time:3 advance=2s,6s handler=healthy,hung start=shared,stale-cache`
    package var description: String {
        let kinds = weights.keys.sorted().map { "\($0.rawValue):\(weights[$0]!)" }.joined(separator: ",")
        let advance = durations.map(ScenarioPrinter.duration).joined(separator: ",")
        let handler = handlers.map(Self.name).joined(separator: ",")
        var start = [sharedStart ? "shared" : "empty"]
        if staleCache { start.append("stale-cache") }
        if damaged { start.append("damaged") }
        if let startingHandler { start.append(Self.name(startingHandler)) }
        if handlerFresh { start.append("handler-fresh") }
        if backgroundLoadTime > 0 { start.append("load-time-" + ScenarioPrinter.duration(backgroundLoadTime)) }
        let power = powerCut.map { " power-loss=\($0)" } ?? ""
        return "platform=\(platform == .iOS ? "ios" : "macos") kinds=\(kinds) advance=\(advance) handler=\(handler) start=\(start.joined(separator: ","))\(power)"
    }

    /// `slow-2s`, `crashing-after-write`: a handler step's words, joined.
    private static func name(_ behaviour: Simulation.HandlerBehaviour) -> String {
        String(ScenarioPrinter.line(.handler(behaviour)).dropFirst("handler ".count)).replacing(" ", with: "-")
    }
}

/// Random schedules in the scenario language: valid by construction (tabs opened before they
/// are named, in the profile in front; the popup open before it is used; a hold before its
/// release), so every one prints to a scenario `harness run` accepts. Nothing here knows a flaw:
/// the same generator finds every one.
struct ScheduleGenerator {
    /// Sites the tabs visit and the editors change: pages on one registrable domain (so page,
    /// host and domain records overlap), another domain, and a page no record applies to; and
    /// where the rules of a decision bite: a page path with dot segments (`%2E%2e` among them)
    /// and a query, the Public Suffix List's exception and wildcard rules (`!city.kawasaki.jp`,
    /// `*.kawasaki.jp`), an internationalized host written in capitals with a trailing dot, and
    /// IPv4 (with a port) and IPv6 hosts, which have host and page keys and never a domain key.
    static let urls = ["https://docs.example.com/guide", "https://docs.example.com/api", "https://example.com/",
                       "https://news.example.org/today", "about:blank",
                       "https://docs.example.com/x/%2E%2e/guide?q=1", "https://www.city.kawasaki.jp/", "https://a.b.kawasaki.jp/x/./y",
                       "https://BÜCHER.example./", "http://192.0.2.1:8080/a/../b", "https://[2001:DB8:0::1]/"]
    static let scopes = ["docs.example.com", "example.com", "docs.example.com/guide", "news.example.org", "other.example.net",
                         ".city.kawasaki.jp", ".a.b.kawasaki.jp", "bücher.example", "192.0.2.1", "192.0.2.1/b", "[2001:db8::1]"]
    /// The same, read once.
    private static let writtenScopes = scopes.map { try! WrittenScope($0) }
    /// For each of `urls`, the scopes of `scopes` whose record a page there reads (by the
    /// reference reading of its keys).
    private static let scopesRead: [String: [WrittenScope]] = Dictionary(uniqueKeysWithValues: urls.map { url in
        let keys = ReferenceAddress.read(url).map { ReferenceDecision.keys(of: $0, suffixes: .embedded) } ?? []
        return (url, zip(scopes, writtenScopes).filter { keys.contains($0.0) }.map(\.1))
    })
    /// Durations that cross the native timeout (5 s), the idle unload (30 s), the port's
    /// keep-alive (2 min), the shortest alarm, a popup pause and a schedule boundary; a minute
    /// lands on the end of the shortest pause and on a minute's edge of a window.
    static let durations: [EpochMillis] = [100, 1_000, 2_000, 4_900, 5_000, 6_000, 29_000, 31_000, 60_000, 120_000, 600_000, 3_600_000]
    /// Background load times a seed may draw: a quick load, the 2023-era WebKit's delay before
    /// it fired what the load queued (0.25 s), and a slow one (1 s).
    static let loadTimes: [EpochMillis] = [100, 250, 1_000]
    /// Schedules with boundaries inside the first hours of a run starting 09:00 UTC: windows
    /// that start at the run's start and one minute into it, end one and two minutes into it,
    /// one over midnight that ends at the start, and an empty one (equal start and end).
    static let schedules = ["09:00-09:01", "09:01-17:00", "20:00-06:00", "08:00-09:30", "09:01-09:02", "09:02-09:00", "09:00-09:00"]
    /// What a handler step may do besides answering at once: answer late (under the timeout and
    /// past it), never, by dying, or with garbage.
    static let handlerFaults: [Simulation.HandlerBehaviour] = [.slow(500), .slow(2_000), .slow(4_000), .slow(6_000), .hung,
                                                                .crashing(afterWrite: false), .crashing(afterWrite: true), .garbage]
    static let profiles = [Simulation.defaultProfile, "work"]

    let options: SwarmOptions
    private var random: SeededRandom
    private var steps: [Step] = []
    private var profile = Simulation.defaultProfile
    /// Open tabs of each profile and their pages; tab names are never reused.
    private var open: [String: [(id: TabID, url: String)]] = [:]
    private var tabsMade = 0
    private var popup: TabID?
    private var held: Set<ProcessName> = []
    private let popupKind: Popup
    /// The extension's own pages run (any popup but the reference one).
    private var runsOwnPages: Bool { popupKind != .reference }

    /// The popup that popup steps use.
    enum Popup: Equatable, Sendable {
        /// The harness's own, with the documented edits.
        case reference
        /// The extension's own (`extension DIR pages`): a user opens it, clicks its buttons,
        /// picks options of its selects, and closes it.
        case own(ExtensionManifest.PopupControls)
        /// The extension's pages run and it has no popup: no popup steps.
        case none
    }

    /// A schedule of `count` actions (besides its setup lines) for a seed, its popup steps for
    /// `popup`.
    static func schedule(seed: UInt64, count: Int, popup: Popup = .reference, loadTimes: Bool = false) -> (options: SwarmOptions, steps: [Step]) {
        var random = SeededRandom(seed: seed)
        let options = SwarmOptions.choose(&random, loadTimes: loadTimes)
        var generator = ScheduleGenerator(options: options, random: random, popup: popup)
        return (options, generator.make(count: count))
    }

    private init(options: SwarmOptions, random: SeededRandom, popup: Popup) {
        self.options = options
        self.random = random
        popupKind = popup
    }

    private mutating func make(count: Int) -> [Step] {
        if options.platform == .macOS { steps.append(.platform(.macOS)) }
        if options.handlerFresh { steps.append(.handlerFresh) }
        if options.backgroundLoadTime > 0 { steps.append(.backgroundLoadTime(options.backgroundLoadTime)) }
        if options.sharedStart {
            steps.append(.shared(.defaults(values(schedule: true))))
            steps.append(.shared(.site(scope(), values(schedule: false))))
        }
        let first = pick(Self.urls)
        // A `cache` line writes the documented storage layout, which an extension running its
        // own pages may not keep: its cache is its own to write.
        if options.staleCache && !runsOwnPages {
            // Half the time a record the first page reads, so that a first answer that does not
            // come from the cache can differ from one that does.
            let read = Self.scopesRead[first] ?? []
            steps.append(.cache(.site(!read.isEmpty && random.chance(1, in: 2) ? pick(read) : scope(), values(schedule: false))))
        }
        if options.damaged { steps.append(.sharedDamaged) }
        if let handler = options.startingHandler { steps.append(.handler(handler)) }
        openTab(url: first)
        let kinds = options.weights.sorted { $0.key < $1.key }
        let total = kinds.reduce(0) { $0 + $1.value }
        // Steps are only ever appended: the actions are counted as they come.
        var actions = steps.count(where: { !$0.isSetup })
        while actions < count {
            var roll = random.below(total)
            let kind = kinds.first { roll -= $0.value; return roll < 0 }!.key
            let before = steps.count
            step(kind)
            actions += steps[before...].count(where: { !$0.isSetup })
        }
        return steps
    }

    private mutating func step(_ kind: SwarmOptions.Kind) {
        switch kind {
        case .tab: tabStep()
        case .appEdit:
            steps.append(.app(pick([.setDefaults(values(schedule: true)), .setSite(scope(), values(schedule: false)),
                                    .setSite(scope(), values(schedule: false)), .resetSite(scope(), fields()), .deleteSite(scope())])))
        case .app: steps.append(.app(pick([.launch, .foreground, .background, .kill])))
        case .popup: popupStep()
        case .safari:
            let step = pick(SafariStep.allCases)
            // The popup goes with Safari, and with a new version of the extension.
            if step == .restart || step == .updateExtension() { popup = nil }
            steps.append(.safari(step))
        case .appearance: steps.append(.appearance(pick(Appearance.allCases)))
        case .background: steps.append(.background(pick(BackgroundStep.allCases)))
        case .handler:
            steps.append(.handler(pick(options.handlers)))
        case .hold:
            let process = pick(ProcessName.allCases)
            if held.remove(process) != nil {
                steps.append(.release(process))
            } else {
                held.insert(process)
                steps.append(.hold(process, at: point(of: process)))
            }
        case .crash:
            let process = pick(ProcessName.allCases)
            steps.append(.crash(process, at: point(of: process)))
        case .fail:
            let process = pick(ProcessName.allCases)
            let point = point(of: process)
            let writes: Set<YieldPoint> = [.writeTemp, .rename, .storageWriteTemp, .storageRename]
            steps.append(.fail(process, at: point, with: pick(StorageErrno.allCases), after: writes.contains(point) && random.chance(1, in: 2)))
        case .profile:
            let next = pick(Self.profiles.filter { $0 != profile })
            profile = next
            popup = nil
            steps.append(.profile(next))
        case .legacy: steps.append(.legacy(pick(LegacyStep.allCases)))
        case .time:
            if random.chance(1, in: 6) {
                steps.append(.settle)
            } else {
                let duration = pick(options.durations)
                // Now and then the device sleeps instead: Safari's timers wait out the sleep.
                steps.append(duration >= 120_000 && random.chance(1, in: 4) ? .deviceSleep(duration) : .advance(duration))
            }
        }
    }

    private mutating func tabStep() {
        let tabs = open[profile, default: []]
        guard tabs.count < 4, !tabs.isEmpty, random.chance(3, in: 4) else { return openTab() }
        let index = random.below(tabs.count)
        let tab = tabs[index].id
        switch random.below(6) {
        case 0: steps.append(.tab(.activate(tab)))
        case 1: steps.append(.tab(.reload(tab)))
        case 2:
            let url = pick(Self.urls)
            open[profile]![index].url = url
            steps.append(.tab(.navigate(tab, url: url)))
        case 3:
            open[profile]!.remove(at: index)
            if popup == tab { popup = nil }
            steps.append(.tab(.close(tab)))
        case 4: steps.append(.tab(.nativeDark(tab, random.chance(1, in: 2))))
        default: openTab()
        }
    }

    private mutating func openTab(url given: String? = nil) {
        tabsMade += 1
        let id = TabID("t\(tabsMade)")
        let url = given ?? pick(Self.urls)
        open[profile, default: []].append((id, url))
        let window = options.platform == .macOS && random.chance(1, in: 4) ? 2 : nil
        steps.append(.tab(.open(id, url: url, nativeDark: random.chance(1, in: 5), window: window)))
    }

    private mutating func popupStep() {
        if popupKind == .none { return }
        let tabs = open[profile, default: []]
        guard let shown = popup, let url = tabs.first(where: { $0.id == shown })?.url else {
            guard !tabs.isEmpty else { return openTab() }
            let tab = pick(tabs).id
            popup = tab
            return steps.append(.popup(.open(tab)))
        }
        if case .own(let controls) = popupKind {
            // Mostly clicks and choices, and now and then the popup closes.
            let choices = controls.choices.filter { !$0.values.isEmpty }
            let uses = controls.clicks.count + choices.count
            if uses == 0 || random.chance(1, in: 5) {
                popup = nil
                return steps.append(.popup(.close))
            }
            let use = random.below(uses)
            guard use >= controls.clicks.count else { return steps.append(.popup(.click(controls.clicks[use]))) }
            let choice = choices[use - controls.clicks.count]
            return steps.append(.popup(.choose(choice.id, value: pick(choice.values))))
        }
        let keys = (try? PageAddress.parse(url).get())?.scopeKeys() ?? []
        switch random.below(8) {
        case 0 where !keys.isEmpty: steps.append(.popup(.scope(try! WrittenScope(pick(keys).text))))
        case 1: steps.append(.popup(.reset(fields())))
        case 2: steps.append(.popup(.forget))
        case 3: steps.append(.popup(.pause(pick([60_000, 600_000, 3_600_000]))))
        case 4:
            popup = nil
            steps.append(.popup(.close))
        default: steps.append(.popup(.set(values(schedule: false))))
        }
    }

    // MARK: - Arguments

    private mutating func pick<T>(_ items: [T]) -> T { items[random.below(items.count)] }

    private mutating func values(schedule: Bool) -> FieldValues {
        var values = FieldValues()
        repeat {
            if random.chance(1, in: 2) { values.mode = pick(Mode.allCases) }
            if random.chance(1, in: 2) { values.theme = pick(Theme.catalogue) }
            if random.chance(1, in: 4) { values.nativeDarkPolicy = pick(NativeDarkPolicy.allCases) }
            if schedule && random.chance(1, in: 4) {
                let parts = pick(Self.schedules).split(separator: "-").map { TimeOfDay(String($0))! }
                values.schedule = Schedule(start: parts[0], end: parts[1])
            }
        } while values.isEmpty
        return values
    }

    private mutating func scope() -> WrittenScope { pick(Self.writtenScopes) }

    private mutating func fields() -> [SiteField] {
        SiteField.allCases.filter { _ in random.chance(1, in: 2) }.nonEmpty ?? [pick(SiteField.allCases)]
    }

    /// A yield point the process reaches: the container's steps for the app and the handler,
    /// extension storage's for the background.
    private mutating func point(of process: ProcessName) -> YieldPoint {
        process == .background ? pick([.storageRead, .storageWriteTemp, .storageRename])
            : pick([.lock, .read, .writeTemp, .rename, .unlock, .lock, .rename])
    }
}

extension Array {
    /// The array, or nil when it is empty.
    var nonEmpty: [Element]? { isEmpty ? nil : self }
}
