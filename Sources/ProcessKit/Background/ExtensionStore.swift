#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

/// The background's own extension storage: `local.json` (cache and outbox, one atomic write) and
/// `session.json` (the pause; Safari removes it when it restarts). The background never learns
/// the App Group container's path: this is all it has. Each step stops at a yield point, like
/// the container's.
public struct ExtensionStore<Files: ExtensionFiles, Gate: YieldGate> {
    public static var localName: String { "local.json" }
    public static var sessionName: String { "session.json" }

    public var files: Files
    public var gate: Gate

    public init(files: Files, gate: Gate) {
        self.files = files
        self.gate = gate
    }

    /// Reads `storage.local` (nil when nothing is stored: a first run), stopping at its yield
    /// point first; a store that cannot be read throws, and one that does not parse is nil.
    public mutating func loadLocal() throws(StoreError) -> LocalStorage? {
        try loadLocal(answer: gate.yield(.storageRead))
    }

    /// The read behind the load's yield point, given the answer there.
    public mutating func loadLocal(answer: YieldAnswer) throws(StoreError) -> LocalStorage? {
        _ = try LateFailure.pass(.storageRead, answer)
        return LocalStorage.read(try files.read(Self.localName))
    }

    /// Reads `storage.session`, Safari's memory: no yield point, and no failure to meet (a
    /// file that cannot be read stands for memory that holds nothing).
    public func loadSession() -> SessionStorage? {
        SessionStorage.decode((try? files.read(Self.sessionName))?.flatMap { try? JSONParser.parse($0) })
    }

    /// Replaces one store atomically: a temporary file, flushed, renamed over it.
    public mutating func save(_ json: JSONValue, as name: String) throws(StoreError) {
        try save(json, as: name, phase: 0, answer: gate.yield(.storageWriteTemp))
        try save(json, as: name, phase: 1, answer: gate.yield(.storageRename))
    }

    /// The yield points of a save, in order: the temporary file written, then renamed.
    public static var savePoints: [YieldPoint] { [.storageWriteTemp, .storageRename] }

    /// The step of a save behind its yield point number `phase`, given the answer there.
    public mutating func save(_ json: JSONValue, as name: String, phase: Int, answer: YieldAnswer) throws(StoreError) {
        let late = try LateFailure.pass(Self.savePoints[phase], answer)
        if phase == 0 {
            try files.writeSynced(JSONWriter.compactRemembered(json), as: name + ".tmp")
        } else {
            try files.rename(name + ".tmp", to: name)
        }
        try late.afterwards()
    }

    /// Replaces `storage.session`. Safari keeps it in memory (an in-memory SQLite store owned by
    /// the extension's context): no temporary file, no flush, and no write error to meet, so no
    /// yield point either. The file stands for that memory; Safari removes it when it restarts.
    public mutating func saveSession(_ json: JSONValue) throws(StoreError) {
        try files.writeSynced(JSONWriter.compact(json), as: Self.sessionName)
    }
}
