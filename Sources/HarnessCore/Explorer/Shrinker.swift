import ProcessKit
import SiteSettings

/// Reduces a failing schedule while it still fails the same way (the same property broken):
/// chunks of steps (halves, quarters, ... single steps), then each step's arguments made plainer
/// (shorter durations, fewer fields, plainer pages and sites, no second window), until nothing
/// more goes; last, the faults no process reached (with their releases), so that `harness run`
/// accepts the result. Candidates that do not parse (a tab named after its opening was dropped)
/// are skipped. Each candidate is a full run, so the work is bounded by `budget` runs.
struct Shrinker {
    let explorer: Explorer
    let property: Property
    var budget: Int
    /// Runs tried so far.
    private(set) var tries = 0

    init(explorer: Explorer, property: Property, budget: Int = 3_000) {
        self.explorer = explorer
        self.property = property
        self.budget = budget
    }

    /// The shortest failing schedule found; `steps` itself if nothing smaller fails.
    mutating func shrink(_ steps: [Step], unreached: Set<Int>) -> [Step] {
        var best = steps
        var unreached = unreached
        var changed = true
        while changed && tries < budget {
            changed = false
            if removeChunks(&best, &unreached) { changed = true }
            if simplifyArguments(&best, &unreached) { changed = true }
        }
        let reached = Self.removing(unreached, from: best)
        if reached.count < best.count, fails(reached, &unreached) { best = reached }
        return best
    }

    /// The steps without those at `indices`, and without the release of a hold removed so.
    static func removing(_ indices: Set<Int>, from steps: [Step]) -> [Step] {
        var kept: [Step] = []
        var dropRelease: Set<ProcessName> = []
        for (index, step) in steps.enumerated() {
            if case .hold(let process, _) = step {
                if indices.contains(index) {
                    dropRelease.insert(process)
                    continue
                }
                dropRelease.remove(process)
            }
            if case .release(let process) = step, dropRelease.remove(process) != nil { continue }
            if !indices.contains(index) { kept.append(step) }
        }
        return kept
    }

    private mutating func fails(_ candidate: [Step], _ unreached: inout Set<Int>) -> Bool {
        guard tries < budget else { return false }
        tries += 1
        let result = explorer.fails(candidate, breaking: property)
        if result.fails { unreached = result.unreached }
        return result.fails
    }

    /// Drops runs of steps, largest first; the lines that make the run what it is stay: its
    /// seed, and the extension whose own pages run (without it, another background and other
    /// pages could fail the same property another way).
    private mutating func removeChunks(_ steps: inout [Step], _ unreached: inout Set<Int>) -> Bool {
        var removed = false
        var size = max(1, steps.count / 2)
        let kept = max(1, steps.prefix { step in
            switch step {
            case .seed, .extensionFolder: true
            default: false
            }
        }.count)
        while size >= 1 {
            var start = kept
            while start < steps.count {
                let end = min(steps.count, start + size)
                let candidate = Array(steps[..<start] + steps[end...])
                if fails(candidate, &unreached) {
                    steps = candidate
                    removed = true
                } else {
                    start += size
                }
            }
            size /= 2
        }
        return removed
    }

    /// Replaces each step by the first plainer form that still fails.
    private mutating func simplifyArguments(_ steps: inout [Step], _ unreached: inout Set<Int>) -> Bool {
        var simplified = false
        for index in steps.indices {
            for plainer in Self.plainer(steps[index]) {
                var candidate = steps
                candidate[index] = plainer
                if fails(candidate, &unreached) {
                    steps = candidate
                    simplified = true
                    break
                }
            }
        }
        return simplified
    }

    /// Plainer forms of a step, plainest first.
    static func plainer(_ step: Step) -> [Step] {
        switch step {
        case .advance(let duration):
            return ScheduleGenerator.durations.filter { $0 < duration }.map { .advance($0) }
        case .deviceSleep(let duration):
            return [.advance(duration)] + ScheduleGenerator.durations.filter { $0 < duration }.map { .deviceSleep($0) }
        case .handler(.slow(let delay)):
            return [.handler(.hung)] + [500, 2_000].filter { $0 < delay }.map { .handler(.slow($0)) }
        case .popup(.pause(let duration)):
            return [60_000].filter { $0 < duration }.map { .popup(.pause($0)) }
        case .tab(.open(let id, let url, let nativeDark, let window, nil)):
            var forms: [Step] = []
            if window != nil { forms.append(.tab(.open(id, url: url, nativeDark: nativeDark, window: nil))) }
            if nativeDark { forms.append(.tab(.open(id, url: url, nativeDark: false, window: window))) }
            if url != ScheduleGenerator.urls[0] { forms.append(.tab(.open(id, url: ScheduleGenerator.urls[0], nativeDark: nativeDark, window: window))) }
            return forms
        case .tab(.navigate(let id, let url, nil)) where url != ScheduleGenerator.urls[0]:
            return [.tab(.navigate(id, url: ScheduleGenerator.urls[0]))]
        case .fail(let process, let point, let errno, true):
            return [.fail(process, at: point, with: errno, after: false)]
        case .app(.setDefaults(let values)):
            return fewer(values).map { .app(.setDefaults($0)) }
        case .app(.setSite(let scope, let values)):
            return fewer(values).map { .app(.setSite(scope, $0)) } + plainer(scope).map { .app(.setSite($0, values)) }
        case .app(.resetSite(let scope, let fields)) where fields.count > 1:
            return fields.map { .app(.resetSite(scope, [$0])) }
        case .popup(.set(let values)):
            return fewer(values).map { .popup(.set($0)) }
        case .popup(.reset(let fields)) where fields.count > 1:
            return fields.map { .popup(.reset([$0])) }
        case .shared(.defaults(let values)):
            return fewer(values).map { .shared(.defaults($0)) }
        case .shared(.site(let scope, let values)):
            return fewer(values).map { .shared(.site(scope, $0)) }
        case .cache(.site(let scope, let values)):
            return fewer(values).map { .cache(.site(scope, $0)) }
        default:
            return []
        }
    }

    /// The values with one field fewer, each way.
    private static func fewer(_ values: FieldValues) -> [FieldValues] {
        guard values.texts.count > 1 else { return [] }
        var forms: [FieldValues] = []
        if values.schedule != nil { var v = values; v.schedule = nil; forms.append(v) }
        if values.nativeDarkPolicy != nil { var v = values; v.nativeDarkPolicy = nil; forms.append(v) }
        if values.theme != nil { var v = values; v.theme = nil; forms.append(v) }
        if values.mode != nil { var v = values; v.mode = nil; forms.append(v) }
        return forms
    }

    /// A plainer site: the first of the generator's, if this is not it.
    private static func plainer(_ scope: WrittenScope) -> [WrittenScope] {
        scope.text == ScheduleGenerator.scopes[0] ? [] : [try! WrittenScope(ScheduleGenerator.scopes[0])]
    }
}
