#if canImport(Glibc)
import Glibc
#endif
import ProcessKit

/// The few folder chores the harness needs, over the C directory calls.
package enum Folder {
    /// The names in a folder (without `.` and `..`), each with whether it is a folder itself.
    static func entries(in path: String) -> [(name: String, isFolder: Bool)] {
        guard let handle = opendir(path) else { return [] }
        defer { closedir(handle) }
        var found: [(String, Bool)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            found.append((name, entry.pointee.d_type == UInt8(DT_DIR)))
        }
        return found
    }

    /// Every file directly in a folder, by name, with its bytes.
    static func files(in path: String) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for entry in entries(in: path) where !entry.isFolder {
            if let bytes = try? FileIO.read(path + "/" + entry.name, name: entry.name) { found[entry.name] = bytes }
        }
        return found
    }

    /// Whether there is a folder at `path`.
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Removes a folder and everything in it (or a file).
    package static func remove(_ path: String) {
        guard opendir(path).map({ closedir($0) }) != nil else {
            unlink(path)
            return
        }
        for entry in entries(in: path) {
            if entry.isFolder { remove(path + "/" + entry.name) } else { unlink(path + "/" + entry.name) }
        }
        rmdir(path)
    }
}
