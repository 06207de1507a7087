#if canImport(Glibc)
import Glibc
#endif

/// Finding and reading scenario files: what `harness run`, `check`, `list` and `sweep` read,
/// and what the tests run.
package enum ScenarioFiles {
    /// The `Scenarios` folder of the package the harness runs in (the working directory).
    package static let root = "Scenarios"

    /// A file or folder named to read that is not there.
    package struct MissingPath: Error, CustomStringConvertible {
        let path: String
        package var description: String { "no such scenario file or folder '\(path)'" }
    }

    /// Every `.scenario` file under the given files and folders, sorted.
    package static func collect(_ paths: [String]) throws(MissingPath) -> [String] {
        var found: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { throw MissingPath(path: path) }
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
    package static func check(_ path: String) -> Result<Scenario, ScenarioErrors> {
        let bytes: [UInt8]
        do { bytes = try UserFile.read(path, limit: sizeLimit) } catch {
            return .failure(ScenarioErrors([ScenarioError(file: path, line: 0, message: error.description)]))
        }
        do {
            let scenario = try Scenario.parse(String(decoding: bytes, as: UTF8.self), name: path)
            _ = try ScenarioSetup(scenario, seed: 1, folder: scenario.folder)
            return .success(scenario)
        } catch {
            return .failure(error)
        }
    }

    /// Every file read and checked: the valid scenarios and every other file's mistakes (a run
    /// starts only when there are none).
    package static func loadAll(_ paths: [String]) -> (scenarios: [Scenario], mistakes: [ScenarioErrors]) {
        var scenarios: [Scenario] = []
        var mistakes: [ScenarioErrors] = []
        for path in paths {
            switch check(path) {
            case .success(let scenario): scenarios.append(scenario)
            case .failure(let errors): mistakes.append(errors)
            }
        }
        return (scenarios, mistakes)
    }
}
