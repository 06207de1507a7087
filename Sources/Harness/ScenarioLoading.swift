#if canImport(Glibc)
import Glibc
#endif
import Foundation
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

extension ScenarioFiles {
    /// The probes (`Scenarios/probes/`, any extension runs them).
    static let probes = root + "/probes"

    /// What runs with `--extension DIR`: the files named, as they are; or, for every named
    /// scenario (`all`), the probes and the extension's own scenarios (whose `extension` line
    /// names DIR), the design's and other extensions' own left out, and `leftOut` says how many,
    /// and why.
    static func forExtension(_ folder: String, _ named: [Scenario], all: Bool) throws(CommandError) -> (scenarios: [Scenario], leftOut: String?) {
        guard all else { return (named, nil) }
        let probes = Folder.isDirectory(probes) ? try load(try files([probes])) : []
        var chosen: [Scenario] = probes
        var design = 0, others = 0
        for scenario in named where !chosen.contains(where: { $0.name == scenario.name }) {
            let own = scenario.extensionFolder
            let isProbe = scenario.lines.contains { if case .probe = $0.step { true } else { false } }
            if isProbe || own.map({ sameFolder($0, folder) }) == true {
                chosen.append(scenario)
            } else if own == nil {
                design += 1
            } else {
                others += 1
            }
        }
        guard design + others > 0 else { return (chosen, nil) }
        var parts: [String] = []
        if design > 0 { parts.append("\(design) of the design's scenarios (they need its shared document, app and decisions)") }
        if others > 0 { parts.append("\(others) of other extensions' own (their 'extension' lines name them)") }
        return (chosen, "left out \(parts.joined(separator: " and ")); name a file to run it anyway")
    }

    /// Whether two paths name the same folder, once each is made absolute and plain.
    private static func sameFolder(_ a: String, _ b: String) -> Bool {
        func plain(_ path: String) -> String {
            URL(fileURLWithPath: ExtensionManifest.absolute(path)).standardizedFileURL.resolvingSymlinksInPath().path
        }
        return plain(a) == plain(b)
    }
}
