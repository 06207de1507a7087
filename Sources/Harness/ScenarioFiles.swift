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
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var found: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".") { continue }
            let path = folder + "/" + name
            if entry.pointee.d_type == UInt8(DT_DIR) { found += walk(path) } else if name.hasSuffix(".scenario") { found.append(path) }
        }
        return found
    }

    static func load(_ path: String) throws(CommandError) -> Scenario {
        let text = String(decoding: try Terminal.readFile(path), as: UTF8.self)
        do { return try Scenario.parse(text, name: path) } catch { throw .usage(error.description) }
    }
}
