#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// A run's files: the App Group container and each Safari profile's extension storage, on the
/// real file system (process transport) or on the simulated disk (in process): only the one
/// the transport uses is made and read.
struct RunFiles {
    let transport: Simulation.Transport
    /// The in-process transport's disk (container and extension storage).
    let disk: SimulatedDisk
    /// The run's folder, holding the container and each profile's extension storage.
    let directory: String
    var containerDirectory: String { directory + "/container" }

    /// The names of the background's `storage.local` and `storage.session` files.
    static let localStorageName = ExtensionStore<ExtensionFolder, RecordingGate>.localName
    static let sessionStorageName = ExtensionStore<ExtensionFolder, RecordingGate>.sessionName
    /// The session's network rules an extension's JavaScript keeps (`declarativeNetRequest`):
    /// Safari drops them when it quits, as it drops `storage.session`.
    static let netRequestSessionName = "net-request-session.json"
    /// The content scripts it registered for the session alone (`scripting.registerContentScripts`
    /// with `persistAcrossSessions: false`): Safari drops them when it quits.
    static let contentScriptsSessionName = "content-scripts-session.json"
    /// Who may use `storage.session` (`storage.session.setAccessLevel`): Safari keeps it until it
    /// quits.
    static let sessionAccessName = "session-access.json"
    /// The optional permissions and host patterns the user granted the profile's extension
    /// (`permissions.request`), which Safari keeps for good: `{"permissions": [...], "origins": [...]}`.
    static let grantedPermissionsName = "permissions.json"

    /// The profile's extension storage folder (real files).
    func storageDirectory(_ profile: String) -> String {
        directory + (profile == Simulation.defaultProfile ? "/extension-storage" : "/extension-storage-\(profile)")
    }

    /// The profile's extension storage folder on the simulated disk.
    static func storageFolder(_ profile: String) -> String {
        profile == Simulation.defaultProfile ? SimulatedExtensionFolder.folder : "extension-storage-\(profile)/"
    }

    /// Makes the container's folder and the profile's storage folder (real files only).
    func makeFolders(profile: String) {
        if transport == .process { mkdir(containerDirectory, 0o755) }
        makeStorageFolder(profile)
    }

    /// Makes the profile's storage folder when it first comes to the front (real files only).
    func makeStorageFolder(_ profile: String) {
        if transport == .process { mkdir(storageDirectory(profile), 0o755) }
    }

    /// Puts a file in the App Group container (before the run: the starting shared document).
    func writeContainerFile(_ name: String, _ bytes: [UInt8]) throws(StoreError) {
        try write(containerDirectory, SimulatedContainer.folder, name, bytes)
    }

    /// Puts a file in a profile's extension storage (before the run: the starting cache).
    func writeStorageFile(_ name: String, _ bytes: [UInt8], profile: String) throws(StoreError) {
        try write(storageDirectory(profile), Self.storageFolder(profile), name, bytes)
    }

    private func write(_ directory: @autoclosure () -> String, _ folder: String, _ name: String, _ bytes: [UInt8]) throws(StoreError) {
        switch transport {
        case .process: try FileIO.writeSynced(bytes, to: directory() + "/" + name, name: name)
        case .inProcess: disk.place(folder + name, bytes)
        }
    }

    /// What the user granted the extension, as the profile keeps it (`permissions.json`): the
    /// permissions by name and the hosts as match patterns.
    struct Grants: Equatable {
        var permissions: [String] = []
        var origins: [String] = []

        var isEmpty: Bool { permissions.isEmpty && origins.isEmpty }
    }

    /// Adds what the user granted to the profile's kept permissions; returns what was not kept
    /// before. A file that is not the kept form (a script wrote it) is replaced, and says so.
    func grant(_ granted: Grants, profile: String) throws(StoreError) -> (added: Grants, problem: String?) {
        var (kept, problem) = grants(profile: profile)
        let added = Grants(permissions: granted.permissions.filter { !kept.permissions.contains($0) },
                           origins: granted.origins.filter { !kept.origins.contains($0) })
        kept.permissions += added.permissions
        kept.origins += added.origins
        try keep(kept, profile: profile)
        return (added, problem)
    }

    /// Takes `item` (a permission's name or a host pattern, as kept) out of the profile's kept
    /// permissions; returns what went (nothing when it was not kept).
    func revoke(_ item: String, profile: String) throws(StoreError) -> Grants {
        var (kept, _) = grants(profile: profile)
        let removed = Grants(permissions: kept.permissions.filter { $0 == item }, origins: kept.origins.filter { $0 == item })
        guard !removed.isEmpty else { return removed }
        kept.permissions.removeAll { $0 == item }
        kept.origins.removeAll { $0 == item }
        try keep(kept, profile: profile)
        return removed
    }

    /// The profile's kept permissions (none when there is no file), and what is wrong with a
    /// file that is not their form.
    func grants(profile: String) -> (Grants, problem: String?) {
        guard let bytes = storageFile(Self.grantedPermissionsName, profile: profile) else { return (Grants(), nil) }
        guard case .object(let members)? = try? JSONParser.parse(bytes), case .array(let names)? = members["permissions"],
              case .array(let patterns)? = members["origins"] else {
            return (Grants(), "\(Self.grantedPermissionsName) was not a list of permissions and origins: it is written afresh")
        }
        func strings(_ items: [JSONValue]) -> [String] { items.compactMap { if case .string(let text) = $0 { text } else { nil } } }
        return (Grants(permissions: strings(names), origins: strings(patterns)), nil)
    }

    private func keep(_ grants: Grants, profile: String) throws(StoreError) {
        let json = JSONValue.object(["permissions": .array(grants.permissions.map { .string($0) }), "origins": .array(grants.origins.map { .string($0) })])
        try writeStorageFile(Self.grantedPermissionsName, JSONWriter.compact(json), profile: profile)
    }

    func containerFile(_ name: String) -> [UInt8]? { read(containerDirectory, SimulatedContainer.folder, name) }

    func storageFile(_ name: String, profile: String) -> [UInt8]? { read(storageDirectory(profile), Self.storageFolder(profile), name) }

    /// Every profile's copy of a file in extension storage, in the order of the profiles' names.
    func storageFiles(_ name: String, profiles: Set<String>) -> [(profile: String, bytes: [UInt8])] {
        profiles.sorted().compactMap { profile in storageFile(name, profile: profile).map { (profile, $0) } }
    }

    /// Session storage lives in Safari's memory: quitting it (or losing power) loses every
    /// profile's.
    func dropSessions(profiles: Set<String>) {
        for profile in profiles {
            for name in [Self.sessionStorageName, Self.netRequestSessionName, Self.contentScriptsSessionName, Self.sessionAccessName] {
                unlink(storageDirectory(profile) + "/" + name)
                disk.place(Self.storageFolder(profile) + name, nil)
            }
        }
    }

    private func read(_ directory: @autoclosure () -> String, _ folder: String, _ name: String) -> [UInt8]? {
        switch transport {
        case .inProcess: return disk.read(folder + name)
        case .process: return (try? FileIO.read(directory() + "/" + name, name: name)) ?? nil
        }
    }
}
