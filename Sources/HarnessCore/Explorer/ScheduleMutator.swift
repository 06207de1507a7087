import ProcessKit
import SiteSettings

/// Makes a new schedule from one that reached something new (guided search): a few edits of its
/// actions, each drawn from a seeded random source. An edit deletes actions, repeats one
/// elsewhere, swaps two, changes a duration or a fault, inserts a fresh action (time passing,
/// a handler's behaviour, a lifecycle event, a fault at a yield point, a tab's or the popup's
/// step on a tab the schedule opens), or splices in a few actions of another schedule. The
/// setup lines stay, and the first line becomes the run's own seed. A mutant is kept only if it
/// reads back as a valid scenario (tabs opened before they are named, the popup open before it
/// is used, a hold before its release), so every one prints to a scenario `harness run` accepts.
struct ScheduleMutator {
    /// At most this many actions (the schedule's length grows and shrinks around it).
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// A valid mutant of `parent`, seeded by `seed`, or nil when no try in a few gave one.
    /// `donor` is another schedule to splice from.
    func mutate(_ parent: [Step], donor: [Step], seed: UInt64, random: inout SeededRandom) -> [Step]? {
        let setupCount = parent.prefix { $0.isSetup }.count
        var setup = Array(parent[..<setupCount])
        if case .seed? = setup.first { setup[0] = .seed(seed) } else { setup.insert(.seed(seed), at: 0) }
        let donorActions = Array(donor.drop { $0.isSetup })
        for _ in 0..<8 {
            var actions = Array(parent[setupCount...])
            let edits = 1 + random.below(4)
            for _ in 0..<edits { edit(&actions, donor: donorActions, random: &random) }
            while actions.count > limit { actions.remove(at: random.below(actions.count)) }
            guard !actions.isEmpty, actions != Array(parent[setupCount...]) else { continue }
            let steps = setup + actions
            if Self.valid(steps) { return steps }
        }
        return nil
    }

    /// Whether the steps print to a scenario that parses back to them.
    static func valid(_ steps: [Step]) -> Bool {
        guard let parsed = try? Scenario.parse(ScenarioPrinter.print(steps), name: "mutant") else { return false }
        return parsed.steps == steps
    }

    // MARK: - Edits

    private func edit(_ actions: inout [Step], donor: [Step], random: inout SeededRandom) {
        guard !actions.isEmpty else { return actions.append(.settle) }
        let at = random.below(actions.count)
        switch random.below(9) {
        case 0:
            let count = 1 + random.below(min(3, actions.count))
            actions.removeSubrange(at..<min(actions.count, at + count))
        case 1:
            actions.insert(actions[at], at: random.below(actions.count + 1))
        case 2:
            let other = random.chance(1, in: 2) ? min(actions.count - 1, at + 1) : random.below(actions.count)
            actions.swapAt(at, other)
        case 3:
            // A duration changed, else any step's fault or argument.
            if let index = actions.indices.filter({ Self.hasDuration(actions[$0]) }).randomElement(&random) {
                actions[index] = Self.retimed(actions[index], random: &random)
            } else {
                actions.insert(fresh(actions, random: &random), at: at)
            }
        case 4:
            if let index = actions.indices.filter({ Self.isFault(actions[$0]) }).randomElement(&random) {
                actions[index] = Self.refaulted(actions[index], random: &random)
            } else {
                actions.insert(fresh(actions, random: &random), at: at)
            }
        case 5, 6, 7:
            actions.insert(fresh(actions, random: &random), at: random.below(actions.count + 1))
        default:
            guard !donor.isEmpty else { return actions.insert(fresh(actions, random: &random), at: at) }
            let start = random.below(donor.count)
            let slice = donor[start..<min(donor.count, start + 1 + random.below(5))]
            actions.insert(contentsOf: slice, at: random.below(actions.count + 1))
        }
    }

    /// A new action: mostly time, the handler and faults (where the rare interleavings are),
    /// and now and then a step of a tab or the popup the schedule already has.
    private func fresh(_ actions: [Step], random: inout SeededRandom) -> Step {
        let tabs = actions.compactMap { step -> TabID? in if case .tab(.open(let id, _, _, _, _)) = step { id } else { nil } }
        switch random.below(12) {
        case 0, 1: return Self.retimed(.advance(0), random: &random)
        case 2: return .settle
        case 3, 4: return .handler(Self.behaviours[random.below(Self.behaviours.count)])
        case 5: return .background(BackgroundStep.allCases[random.below(BackgroundStep.allCases.count)])
        case 6: return .safari(SafariStep.allCases[random.below(SafariStep.allCases.count)])
        case 7: return .app([AppStep.launch, .foreground, .background, .kill][random.below(4)])
        case 8:
            let process = ProcessName.allCases[random.below(ProcessName.allCases.count)]
            return random.chance(1, in: 2) ? .crash(process, at: Self.point(of: process, random: &random))
                : .fail(process, at: Self.point(of: process, random: &random), with: StorageErrno.allCases[random.below(StorageErrno.allCases.count)], after: false)
        default:
            guard !tabs.isEmpty else { return .settle }
            let tab = tabs[random.below(tabs.count)]
            switch random.below(4) {
            case 0: return .tab(.activate(tab))
            case 1: return .tab(.reload(tab))
            case 2: return .popup(.open(tab))
            default: return .appearance(Appearance.allCases[random.below(Appearance.allCases.count)])
            }
        }
    }

    private static let behaviours: [Simulation.HandlerBehaviour] = [.healthy] + ScheduleGenerator.handlerFaults

    private static func hasDuration(_ step: Step) -> Bool {
        switch step {
        case .advance, .deviceSleep, .handler(.slow), .popup(.pause): true
        default: false
        }
    }

    private static func isFault(_ step: Step) -> Bool {
        switch step {
        case .handler, .crash, .fail, .hold: true
        default: false
        }
    }

    /// The step with another of the generator's durations (a handler's delay among its delays).
    private static func retimed(_ step: Step, random: inout SeededRandom) -> Step {
        let durations = ScheduleGenerator.durations
        switch step {
        case .deviceSleep: return .deviceSleep(durations.filter { $0 >= 120_000 }[random.below(3)])
        case .handler(.slow): return .handler(.slow([500, 2_000, 4_000, 6_000][random.below(4)]))
        case .popup(.pause): return .popup(.pause([60_000, 600_000, 3_600_000][random.below(3)]))
        default: return .advance(durations[random.below(durations.count)])
        }
    }

    /// The fault with another behaviour, process or point.
    private static func refaulted(_ step: Step, random: inout SeededRandom) -> Step {
        switch step {
        case .handler: return .handler(behaviours[random.below(behaviours.count)])
        case .crash(let process, _): return .crash(process, at: point(of: process, random: &random))
        case .fail(let process, _, let errno, _): return .fail(process, at: point(of: process, random: &random), with: errno, after: false)
        case .hold(let process, _): return .hold(process, at: point(of: process, random: &random))
        default: return step
        }
    }

    private static func point(of process: ProcessName, random: inout SeededRandom) -> YieldPoint {
        let points: [YieldPoint] = process == .background ? [.storageRead, .storageWriteTemp, .storageRename] : [.lock, .read, .writeTemp, .rename, .unlock]
        return points[random.below(points.count)]
    }
}

extension Array {
    /// An element drawn from `random`, or nil when the array is empty.
    func randomElement(_ random: inout SeededRandom) -> Element? {
        isEmpty ? nil : self[random.below(count)]
    }
}
