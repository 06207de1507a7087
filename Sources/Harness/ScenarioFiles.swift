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

    static func load(_ path: String) throws(CommandError) -> Scenario {
        let text = String(decoding: try Terminal.readFile(path), as: UTF8.self)
        do { return try Scenario.parse(text, name: path) } catch { throw .usage(error.description) }
    }
}
