#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
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
        let files = try ScenarioFiles.collect([ScenarioFiles.root])
        let scenarios = try files.map { (file: String) throws(CommandError) -> Scenario in try ScenarioFiles.load(file) }
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
        var failed = 0
        for (index, scenario) in scenarios.enumerated() {
            sampler.scenario.withLock { $0 = index }
            let directory = "/tmp/harness-bench-memory-\(getpid())-\(index)"
            do {
                let outcome = try ScenarioRunner(scenario, transport: .process, seed: 1, executables: Executables.directory, directory: directory).run()
                if !outcome.passed { failed += 1 }
            } catch {
                throw .usage(error.description)
            }
            Executables.removeTree(directory)
        }
        sampler.stop.store(true, ordering: .relaxed)
        pthread_join(thread, nil)

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
        guard let text = readProc(pid.map { "/proc/\($0)/status" } ?? "/proc/self/status") else { return nil }
        var resident: Int?, peak: Int?
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") || line.hasPrefix("VmHWM:") {
            let kibibytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            if line.hasPrefix("VmRSS:") { resident = kibibytes } else { peak = kibibytes }
        }
        guard let resident, let peak else { return nil }
        return (resident * 1024, peak * 1024)
    }

    private static func readProc(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Samples every millisecond until told to stop.
    final class Sampler: Sendable {
        struct Peak { var bytes = 0, scenario: Int?, samples = 0, largestChild = 0 }
        let stop = Atomic(false)
        let scenario = Mutex<Int?>(nil)
        let peak = Mutex(Peak())

        func loop() {
            while !stop.load(ordering: .relaxed) {
                let children = ChildProcess.census.withLock { $0.running }
                var total = status(nil)?.resident ?? 0
                var largestChild = 0
                for pid in children {
                    guard let child = status(pid) else { continue }
                    total += child.resident
                    largestChild = max(largestChild, child.peak)
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
