#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

/// The background's own extension storage on disk: `local.json` (cache and outbox, one atomic
/// write) and `session.json` (the pause; Safari removes it when it restarts). The background
/// never learns the App Group container's path: this folder is all it has. Each step stops at
/// a yield point, like the container's.
public struct ExtensionStore<Gate: YieldGate> {
    public static var localName: String { "local.json" }
    public static var sessionName: String { "session.json" }

    public let directory: String
    public var gate: Gate

    public init(directory: String, gate: Gate) {
        self.directory = directory
        self.gate = gate
    }

    /// Both stores; an unreadable one counts as empty (a first run), never as a crash.
    public mutating func load() throws(StoreError) -> (LocalStorage?, SessionStorage?) {
        try pass(.storageRead)
        let local = try read(Self.localName).flatMap { try? JSONParser.parse($0) }
        let session = try read(Self.sessionName).flatMap { try? JSONParser.parse($0) }
        return (LocalStorage.decode(local), SessionStorage.decode(session))
    }

    public mutating func save(_ json: JSONValue, as name: String) throws(StoreError) {
        let path = directory + "/" + name
        let temporary = path + ".tmp"
        try pass(.storageWriteTemp)
        try FileIO.writeSynced(JSONWriter.compact(json), to: temporary, name: name + ".tmp")
        try pass(.storageRename)
        if rename(temporary, path) != 0 { throw StoreError("rename \(name)", errno: errno) }
    }

    private mutating func pass(_ point: YieldPoint) throws(StoreError) {
        if case .fail(let errno) = gate.yield(point) { throw StoreError(point.rawValue, errno: errno) }
    }

    private func read(_ name: String) throws(StoreError) -> [UInt8]? {
        try FileIO.read(directory + "/" + name, name: name)
    }
}
