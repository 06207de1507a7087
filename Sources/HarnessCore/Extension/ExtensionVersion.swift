import ProcessKit
import SiteSettings

/// An extension's version as a manifest writes it: one to four numbers from 0 to 65535 joined by
/// dots (the WebExtensions rule Safari follows). WebKit sees an update only when the version
/// changes (`WebExtensionContext::determineInstallReasonDuringLoad` compares it with the last seen).
struct ExtensionVersion: Equatable, Sendable {
    let numbers: [Int]

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 5, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber), let number = Int(part), number <= 65_535 else { return nil }
            numbers.append(number)
        }
        self.numbers = numbers
    }

    var text: String { numbers.map(String.init).joined(separator: ".") }

    /// The version a plain `safari update-extension` installs: the last number one higher
    /// (1.0 -> 1.1), or a number more when it is at its largest (1.65535 -> 1.65535.1).
    var next: ExtensionVersion {
        var numbers = numbers
        if numbers[numbers.count - 1] < 65_535 { numbers[numbers.count - 1] += 1 } else if numbers.count < 4 { numbers.append(1) }
        return ExtensionVersion(numbers: numbers)
    }

    private init(numbers: [Int]) { self.numbers = numbers }

    /// The version a plain update installs after `installed` (one the manifest writes another
    /// way than this rule: with ".1" added).
    static func following(_ installed: String) -> String {
        ExtensionVersion(installed)?.next.text ?? installed + ".1"
    }

    /// The manifest of the extension whose JavaScript `background` runs (`--extension FOLDER`),
    /// if it runs one that reads.
    static func manifest(of background: ProcessExecutables.Command) -> ExtensionManifest? {
        let arguments = background.arguments
        guard let flag = arguments.firstIndex(of: "--extension"), flag + 1 < arguments.count,
              case .success(let loaded) = ExtensionManifest.load(folder: arguments[flag + 1]) else { return nil }
        return loaded.manifest
    }

    /// The version Safari installs `manifest`'s files as: its own, or 1.0 when it gives an empty one.
    static func of(_ manifest: ExtensionManifest) -> String { manifest.version.isEmpty ? "1.0" : manifest.version }

    /// An update to another folder's files, read before the run.
    struct Folder: Equatable, Sendable {
        /// The folder as the scenario wrote it.
        var written: String
        /// The folder, from anywhere (resolved against the scenario's folder).
        var path: String
        /// The version its manifest gives.
        var version: String
        /// Its popup's controls (`popup click ID`).
        var popupControls: ExtensionManifest.PopupControls
        /// Its toolbar item's values before the extension sets any.
        var actionDefaults: [ExtensionAction.Property: JSONValue] = [:]
        /// Its keyboard commands' names, and its options page.
        var commandNames: [String] = []
        var optionsPage: String?
    }

    /// Each `safari update-extension` of `scenario` installs another version than the one
    /// installed then: WebKit sees no update when the version stays (`determineInstallReasonDuringLoad`).
    /// An update to a folder (relative to `folder`, the scenario's) needs the run's background
    /// to be an extension's JavaScript (`background`, the command it runs), and a folder whose
    /// manifest Safari would load; returns those folders, by the path the scenario wrote.
    static func checkUpdates(in scenario: Scenario, startingAt version: String, background: ProcessExecutables.Command,
                             folder: String) throws(ScenarioErrors) -> [String: Folder] {
        var installed = version
        var folders: [String: Folder] = [:]
        for line in scenario.lines {
            guard case .safari(.updateExtension(let version, let path)) = line.step else { continue }
            func mistake(_ message: String) -> ScenarioErrors {
                ScenarioErrors([ScenarioError(file: scenario.name, line: line.number, message: "\(line.text): " + message)])
            }
            var next = version ?? following(installed)
            if let path {
                guard ExtensionRuntime.runs(background) else {
                    throw mistake("the run's background is the built-in design's, which has no files to update; "
                        + "an update to a folder replaces an extension's JavaScript (name it first: extension DIR)")
                }
                let full = ExtensionManifest.absolute(ScenarioSetup.resolve(path, in: folder))
                switch ExtensionManifest.runnable(folder: full) {
                case .failure(let problem): throw mistake(problem.description)
                case .success(let manifest):
                    next = of(manifest)
                    folders[path] = Folder(written: path, path: full, version: next, popupControls: manifest.popupControls, actionDefaults: manifest.actionDefaults,
                                           commandNames: manifest.commandNames, optionsPage: manifest.optionsPage)
                }
            }
            if next == installed {
                throw mistake("version \(installed) is installed already, and Safari sees an update only when the version changes"
                    + (path == nil ? "" : " (\(path!)'s manifest.json gives \(next))"))
            }
            installed = next
        }
        return folders
    }
}
