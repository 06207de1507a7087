#if canImport(Glibc)
import Glibc
#endif
import HarnessCore

/// Scenario files as the commands take them: a missing path is a usage error, and a file with
/// mistakes has them printed on stderr before anything runs.
extension ScenarioFiles {
    /// Every `.scenario` file under the paths, or under `Scenarios/` when none is given.
    static func files(_ paths: [String]) throws(CommandError) -> [String] {
        if paths.isEmpty, !Folder.isDirectory(root) {
            let here = getcwd(nil, 0).map { pointer in defer { free(pointer) }; return String(cString: pointer) } ?? "the current folder"
            throw .usage("no \(root)/ folder in \(here): run from the repository's root, or name scenario files or folders ('harness run PATH ...')")
        }
        do { return try collect(paths.isEmpty ? [root] : paths) } catch { throw .usage(error.description) }
    }

    /// Every file read and checked; each mistake of every file is printed and nothing is
    /// returned when any has one.
    static func load(_ paths: [String]) throws(CommandError) -> [Scenario] {
        let (scenarios, mistakes) = loadAll(paths)
        guard mistakes.isEmpty else {
            for errors in mistakes { Terminal.err(errors.description + "\n") }
            throw .invalidScenarios("\(mistakes.count) of \(paths.count) scenario files have mistakes (listed above); nothing was run")
        }
        return scenarios
    }
}
