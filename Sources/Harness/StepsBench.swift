#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit
import SiteSettings

/// `harness bench steps`: what a scenario costs as it grows. Scenarios of each length are made
/// as typed steps, printed and parsed as a file would be, and run in process: popup changes
/// with no `settle` between (native replies pile up behind the user, the outbox is written at
/// every change) and app edits over fifty sites. A linear harness costs the same per step at
/// every length.
enum StepsBench {
    static func run(lengths: [Int], rounds: Int) throws(CommandError) {
        let root = "/tmp/harness-bench-steps-\(getpid())"
        mkdir(root, 0o755)
        defer { Folder.remove(root) }
        let clock = ContinuousClock()
        let kinds: [(name: String, make: (Int) -> [Step])] = [("popup set", popupChanges), ("app set", appEdits)]
        var times: [String: [Int: [Double]]] = [:]
        for round in 1...rounds {
            for kind in kinds {
                for length in lengths {
                    let text = ScenarioPrinter.print(kind.make(length), description: ["\(length) steps of \(kind.name)"])
                    let scenario: Scenario
                    do { scenario = try Scenario.parse(text, name: kind.name) } catch { throw .invalidInput("a generated scenario does not parse: \(error)") }
                    let directory = root + "/\(round)-\(length)"
                    let start = clock.now
                    let outcome: ScenarioRunner.Outcome
                    do {
                        outcome = try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: Executables.builtIn,
                                                     directory: directory).run()
                    } catch {
                        throw .invalidInput("a generated scenario could not run: \(error)")
                    }
                    let seconds = Executables.seconds(clock.now - start)
                    Folder.remove(directory)
                    if !outcome.passed { throw .invalidInput("a generated scenario failed: \(outcome.failures[0])") }
                    times[kind.name, default: [:]][length, default: []].append(seconds)
                    Terminal.out("  round \(round)/\(rounds): \(kind.name) x \(length): \(format(seconds * 1000)) ms\n")
                }
            }
        }
        for kind in kinds {
            let base = BenchCommand.median(times[kind.name]![lengths[0]]!) / Double(lengths[0] + 4)
            Terminal.out("\(kind.name) (median of \(rounds) rounds):\n")
            for length in lengths {
                let total = BenchCommand.median(times[kind.name]![length]!)
                let perStep = total / Double(length + 4)
                Terminal.out("  \(length) steps: \(format(total * 1000)) ms, \(format(perStep * 1_000_000)) µs per step, \(format(perStep / base, places: 2))x the shortest's cost per step\n")
            }
        }
    }

    /// A tab, its popup open, then `count` popup changes and nothing settled between them.
    static func popupChanges(_ count: Int) -> [Step] {
        let tab = TabID("t1")
        let themes: [Theme] = [.dark, .gray, .sepia, .invert]
        return [.tab(.open(tab, url: "https://a.example/", nativeDark: false, window: nil)), .settle, .popup(.open(tab))]
            + (0..<count).map { .popup(.set(FieldValues(theme: themes[$0 % themes.count]))) } + [.settle]
    }

    /// The app, then `count` edits over fifty sites.
    static func appEdits(_ count: Int) -> [Step] {
        let themes: [Theme] = [.dark, .gray, .sepia, .invert]
        return [.app(.launch), .settle, .settle] + (0..<count).map { index -> Step in
            .app(.setSite(try! WrittenScope("s\(index % 50).example"), FieldValues(theme: themes[index % themes.count])))
        } + [.settle]
    }

    private static func format(_ value: Double, places: Int = 1) -> String { BenchCommand.format(value, places: places) }
}
