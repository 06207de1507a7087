#if canImport(Glibc)
import Glibc
#endif
import HarnessCore

/// Finding and reading scenario files.
enum ScenarioFiles {
    /// The `Scenarios` folder of the package the harness runs in (the working directory).
    static let root = "Scenarios"

    /// Every `.scenario` file under the given files and folders, sorted.
    static func collect(_ paths: [String]) throws(CommandError) -> [String] {
        var found: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { throw .usage("no such scenario file or folder '\(path)'") }
            if (info.st_mode & S_IFMT) == S_IFDIR { found += walk(path) } else { found.append(path) }
        }
        return found.sorted()
    }

    private static func walk(_ folder: String) -> [String] {
        var found: [String] = []
        for entry in Folder.entries(in: folder) where !entry.name.hasPrefix(".") {
            let path = folder + "/" + entry.name
            if entry.isFolder { found += walk(path) } else if entry.name.hasSuffix(".scenario") { found.append(path) }
        }
        return found
    }

    /// The largest scenario file read.
    static let sizeLimit = 16 << 20

    /// One file read and checked whole: its text parsed into steps, and its setup read (the
    /// document files it names included), so a mistake anywhere is found before anything runs.
    static func check(_ path: String) -> Result<Scenario, ScenarioErrors> {
        let bytes: [UInt8]
        do { bytes = try UserFile.read(path, limit: sizeLimit) } catch {
            return .failure(ScenarioErrors([ScenarioError(file: path, line: 0, message: error.description)]))
        }
        do {
            let scenario = try Scenario.parse(String(decoding: bytes, as: UTF8.self), name: path)
            let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            _ = try ScenarioSetup(scenario, seed: 1, folder: folder)
            return .success(scenario)
        } catch {
            return .failure(error)
        }
    }

    /// Every file read and checked. When any has a mistake, each mistake of every file is
    /// printed on stderr and nothing is returned: a run starts only when all are valid.
    static func loadAll(_ paths: [String]) throws(CommandError) -> [Scenario] {
        var scenarios: [Scenario] = []
        var invalid = 0
        for path in paths {
            switch check(path) {
            case .success(let scenario): scenarios.append(scenario)
            case .failure(let errors):
                invalid += 1
                Terminal.err(errors.description + "\n")
            }
        }
        if invalid > 0 {
            throw .invalidScenarios("\(invalid) of \(paths.count) scenario files have mistakes (listed above); nothing was run")
        }
        return scenarios
    }
}
