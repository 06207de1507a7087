#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit
import Synchronization

/// `harness bench memory`: the resident memory of the harness and its children together while
/// the named scenarios run on real processes. Two figures bracket the true peak:
/// - a sample, every millisecond, of the harness's resident set plus that of every child then
///   running (a lower bound: a short-lived handler can peak between two samples);
/// - the harness's own peak plus, for the most children ever running at once, the largest peak
///   (VmHWM) any child was seen with (nearly an upper bound: it adds peaks that need not
///   coincide, though a child's last moments can fall between two samples).
enum MemoryBench {
    static func run() throws(CommandError) {
        let files = try ScenarioFiles.files([])
        let scenarios = try ScenarioFiles.load(files)
        // Peaks start from here: not from an earlier benchmark in the same process.
        let clear = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
        if clear >= 0 {
            _ = write(clear, "5", 1)
            close(clear)
        }
        ChildProcess.census.withLock { $0.mostAtOnce = $0.running.count }
        let sampler = Sampler()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(sampler).toOpaque()
        guard pthread_create(&thread, nil, { context in
            let sampler = Unmanaged<Sampler>.fromOpaque(context!).takeRetainedValue()
            sampler.loop()
            return nil
        }, context) == 0 else {
            Unmanaged<Sampler>.fromOpaque(context).release()
            throw .invalidInput("could not start the sampling thread")
        }
        defer {
            sampler.stop.store(true, ordering: .relaxed)
            pthread_join(thread, nil)
        }
        var failed = 0
        for (index, scenario) in scenarios.enumerated() {
            sampler.scenario.withLock { $0 = index }
            let directory = "/tmp/harness-bench-memory-\(getpid())-\(index)"
            defer { Folder.remove(directory) }
            do {
                let outcome = try ScenarioRunner(scenario, transport: .process, seed: 1, executables: Executables.builtIn, directory: directory).run()
                if !outcome.passed { failed += 1 }
            } catch {
                throw .usage(error.description)
            }
        }
        sampler.stop.store(true, ordering: .relaxed)

        let (peak, where_, samples) = sampler.peak.withLock { ($0.bytes, $0.scenario, $0.samples) }
        let harnessPeak = status(nil)?.peak ?? 0
        let largestChild = sampler.peak.withLock { $0.largestChild }
        let most = ChildProcess.census.withLock { $0.mostAtOnce }
        let bound = harnessPeak + most * largestChild
        Terminal.out("memory over \(scenarios.count) scenarios (\(failed) failed), real processes:\n")
        Terminal.out("  sampled peak of harness + running children: \(mebibytes(peak)) MiB (\(samples) samples; in \(where_.map { scenarios[$0].name } ?? "none"))\n")
        Terminal.out("  harness peak \(mebibytes(harnessPeak)) MiB; largest child peak \(mebibytes(largestChild)) MiB; at most \(most) children at once\n")
        Terminal.out("  sum of peaks (harness peak + \(most) x largest child peak): \(mebibytes(bound)) MiB\n")
    }

    private static func mebibytes(_ bytes: Int) -> String { String((Double(bytes) / 1_048_576 * 10).rounded() / 10) }

    /// A process's resident set now and at its peak (VmRSS, VmHWM in `/proc/PID/status`), in
    /// bytes; nil for this process. Nil when it has ended (a zombie has no memory fields).
    static func status(_ pid: pid_t?) -> (resident: Int, peak: Int)? {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let bytes = try? FileIO.read(path, name: path) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        var resident: Int?, peak: Int?
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") || line.hasPrefix("VmHWM:") {
            let kibibytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            if line.hasPrefix("VmRSS:") { resident = kibibytes } else { peak = kibibytes }
        }
        guard let resident, let peak else { return nil }
        return (resident * 1024, peak * 1024)
    }

    /// Samples every millisecond until told to stop.
    final class Sampler: Sendable {
        struct Peak { var bytes = 0, scenario: Int?, samples = 0, largestChild = 0 }
        let stop = Atomic(false)
        let scenario = Mutex<Int?>(nil)
        let peak = Mutex(Peak())

        func loop() {
            while !stop.load(ordering: .relaxed) {
                var total = status(nil)?.resident ?? 0
                var largestChild = 0
                // Read under the census lock, so that no child is reaped (and its pid reused) meanwhile.
                ChildProcess.census.withLock { census in
                    for pid in census.running {
                        guard let child = status(pid) else { continue }
                        total += child.resident
                        largestChild = max(largestChild, child.peak)
                    }
                }
                let current = scenario.withLock { $0 }
                peak.withLock { peak in
                    peak.samples += 1
                    peak.largestChild = max(peak.largestChild, largestChild)
                    if total > peak.bytes { (peak.bytes, peak.scenario) = (total, current) }
                }
                usleep(1000)
            }
        }
    }
}
