import ProcessKit
import SiteSettings

/// The real files a soak's processes share, read as they are at the moment of asking: the App
/// Group container and the background's extension storage.
struct SoakFiles: Sendable {
    let container: String
    let storage: String

    private func read(_ folder: String, _ name: String) -> [UInt8]? {
        try? FileIO.read(folder + "/" + name, name: name)
    }

    /// The shared document's bytes, or nil when there is none yet.
    var documentBytes: [UInt8]? { read(container, FileContainer.documentName) }

    var document: SettingsDocument? { documentBytes.flatMap { try? DocumentCodec.decode($0).document } }

    /// `storage.local` as the background would load it, or nil.
    var local: LocalStorage? { LocalStorage.read(read(storage, ExtensionStore<ExtensionFolder, WireGate>.localName)) }

    /// Invariant 1: every document and cache on disk parses. A soak plants no damage, so a
    /// file that does not parse was left so by one of our processes.
    func torn() -> [String] {
        var problems: [String] = []
        for name in [FileContainer.documentName, FileContainer.previousName] {
            if let bytes = read(container, name), (try? DocumentCodec.decode(bytes)) == nil { problems.append("\(name) does not parse") }
        }
        let local = ExtensionStore<ExtensionFolder, WireGate>.localName
        if let bytes = read(storage, local), LocalStorage.read(bytes) == nil { problems.append("the background's \(local) does not parse") }
        for entry in Folder.entries(in: container) where entry.name.hasPrefix("settings.damaged-") {
            problems.append("\(entry.name): a document was set aside as damaged")
        }
        return problems
    }

    /// Safari's restart empties `storage.session`.
    func removeSession() {
        Folder.remove(storage + "/" + ExtensionStore<ExtensionFolder, WireGate>.sessionName)
    }
}
