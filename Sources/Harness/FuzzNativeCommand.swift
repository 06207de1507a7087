#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit
import SiteSettings

/// `harness fuzz-native`: seeded, mutated messages against the native handler's boundary, in
/// batches run by worker subprocesses (so one trap cannot end the count), or one real handler
/// process per message.
enum FuzzNativeCommand: HarnessCommand {
    static let name = "fuzz-native"
    static let abstract = "Send the native handler malformed and mutated messages and check every answer."
    static let usage = "harness fuzz-native [--count N] [--seed S] [--from I] [--batch N] [--workers N] [--transport in-process|process]"
    static let discussion = """
        Message I of seed S is always the same: a valid request (getSnapshot, patch, deleteSite,
        getEnabled, toggleEnabled), kept as it is or mutated (truncated, invalid UTF-8, raw NUL
        bytes, wrong types, missing or unknown members, unknown types, deep nesting, huge strings
        and arrays, hostile scope keys such as ../../x, thousands of labels, times in the future
        beyond the handler's tolerance of 60 s, negative or in seconds). How it was made says
        whether it is valid; the handler's own validator is never asked. A valid message must get
        a normal answer and leave a readable document; an invalid one an error answer, with every
        file's bytes unchanged; the handler must never crash.
        In process (the default), batches of --batch messages (default 50000) run in --workers
        worker subprocesses at a time (default 2); a worker that dies is reported with the command
        that replays its batch. With --transport process every message goes to a fresh
        NativeHandler process. Prints what was sent, answered, applied and rejected.
        Exit status: 0 when every message was handled as it should be, 1 otherwise.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["count", "seed", "from", "batch", "workers", "transport"], flags: ["worker"])
        try args.noPositionals()
        if args.flag("worker") { return try worker(args) }
        let count = try args.count("count", default: 100_000)
        let from = try args.count("from", default: 0, allowingZero: true)
        let batch = try args.count("batch", default: 50_000)
        let workers = try args.count("workers", default: 2)
        let seed = try RunCommand.seed(args)
        let transport = try RunCommand.transport(args, default: .inProcess)
        let clock = ContinuousClock()
        let start = clock.now
        Terminal.out("fuzz-native: seed \(seed), messages \(from)..<\(from + count), transport \(transport.rawValue)\n")
        var tally = NativeFuzz.Tally()
        var crashes: [String] = []
        if transport == .process {
            let root = "/tmp/harness-fuzz-native-\(getpid())"
            defer { Folder.remove(root) }
            tally = NativeFuzz.runOnProcesses(seed: seed, from: from, count: count, executables: Executables.builtIn, directory: root) { done in
                if done % 100 == 0 { Terminal.out("  \(done) of \(count)\n") }
            }
        } else {
            var batches = stride(from: from, to: from + count, by: batch).map { ($0, min(batch, from + count - $0)) }
            let total = batches.count
            var done = 0
            while !batches.isEmpty {
                let wave = batches.prefix(workers)
                batches.removeFirst(wave.count)
                let started = wave.map { range in (range, try? ChildProcess(executable: Executables.current,
                    arguments: ["fuzz-native", "--worker", "--seed", String(seed), "--from", String(range.0), "--count", String(range.1)])) }
                for (range, child) in started {
                    done += 1
                    let replay = "harness fuzz-native --seed \(seed) --from \(range.0) --count \(range.1) --batch \(range.1)"
                    guard let child, let frame = try? child.receive(timeoutMilliseconds: 3_600_000),
                          let json = try? JSONParser.parse(frame), let part = NativeFuzz.Tally(json) else {
                        let status = child.map { String(describing: $0.wait(timeoutMilliseconds: 10_000) ?? .unknown) } ?? "did not start"
                        crashes.append("worker for messages \(range.0)..<\(range.0 + range.1) died (\(status)); replay: \(replay)")
                        Terminal.out("  batch \(done)/\(total): the worker died\n")
                        continue
                    }
                    _ = child.wait(timeoutMilliseconds: 10_000)
                    tally.add(part)
                    Terminal.out("  batch \(done)/\(total): \(part.sent) sent, \(part.wrong) wrong; \(tally.sent) so far\n")
                }
            }
        }
        let seconds = (Executables.seconds(clock.now - start) * 10).rounded() / 10
        Terminal.out("\(tally.sent) sent, \(tally.answered) answered, \(tally.applied) applied (valid), \(tally.rejected) rejected (invalid; \(tally.refusedAsFrames) of them as unreadable frames), "
                     + "\(tally.wrong) handled wrongly, \(crashes.count) worker crashes, \(seconds) s\n")
        for example in tally.examples { Terminal.out("  wrong: \(example)\n") }
        for crash in crashes { Terminal.out("  crash: \(crash)\n") }
        return tally.wrong == 0 && crashes.isEmpty ? 0 : 1
    }

    /// `--worker` (used by the command itself): one batch in this process; the tally goes out
    /// as one frame on standard output.
    private static func worker(_ args: CommandLineArguments) throws(CommandError) -> Int32 {
        let tally = NativeFuzz.runInProcess(seed: try RunCommand.seed(args), from: try args.count("from", default: 0, allowingZero: true),
                                            count: try args.count("count", default: 1))
        do { try FrameWriter(descriptor: 1).write(JSONWriter.compact(tally.json)) } catch { return 1 }
        return 0
    }

}
