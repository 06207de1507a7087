import Foundation
import ProcessKit
import SiteSettings

/// An unpacked extension folder (Manifest V3, or V2) as Safari
/// reads it before it runs anything: the
/// background, the content scripts, the popup, the permissions and the localized strings.
/// Every mistake is reported at once, each with its file and where in it (a JSON path, or a
/// line); what Safari only warns about (a missing icon, a permission it does not know) comes
/// back as a warning.
package struct ExtensionManifest: Sendable, Equatable {
    /// How the background's scripts are evaluated.
    package enum ScriptKind: String, Sendable { case classic, module }

    /// `background.service_worker` (one script) or `background.scripts` (loaded in order in one
    /// context), either may be a module; or Manifest V2's `background.page`, whose `<script src>`
    /// files load in order (`page` names it).
    package struct Background: Sendable, Equatable {
        package var scripts: [String]
        package var kind: ScriptKind
        var isServiceWorker: Bool
        var page: String? = nil
        /// Manifest V2's `persistent` (its default): Safari on macOS loads it with the extension
        /// and never unloads it; Safari on iOS refuses it.
        package var persistent = false
    }

    /// 3, or 2.
    var manifestVersion = 3
    /// The toolbar item's values before the extension sets any (`expect action` reads them):
    /// its title and popup as the manifest gives them, no badge, and enabled, but for V2's page
    /// action, which shows in no tab until a script shows it.
    var actionDefaults: [ExtensionAction.Property: JSONValue] = [:]
    /// The names of its keyboard commands (`commands`), which the step `command NAME` presses.
    var commandNames: [String] = []
    /// Its options page, a path in the extension (`options_ui.page`, else `options_page`, as
    /// WebKit's `WebExtension::optionsPagePath` reads them), which `options open` shows.
    package var optionsPage: String?

    package struct ContentScript: Sendable, Equatable {
        enum RunAt: String, Sendable, CaseIterable { case documentStart = "document_start", documentEnd = "document_end", documentIdle = "document_idle" }
        var matches: [String]
        var js: [String]
        var css: [String]
        var runAt: RunAt
        var allFrames: Bool
    }

    /// The address of the extension's own page `path` in Safari, as `runtime.getURL` gives it
    /// (the harness's extensions are all at the host `extension`).
    static func pageURL(_ path: String) -> String { "safari-web-extension://extension/" + path }

    /// Whether `url` is one of the extension's own pages.
    static func isOwnPage(_ url: String) -> Bool { url.hasPrefix("safari-web-extension://") }

    /// The folder, as given.
    var folder: String
    /// `name`, with `__MSG_…__` replaced from the default locale.
    package var name: String
    package var version: String
    package var background: Background?
    package var contentScripts: [ContentScript]
    /// `action.default_popup`.
    package var popup: String?
    var permissions: Set<String>
    var hostPermissions: [String]
    var defaultLocale: String?
    /// The default locale's messages (`_locales/LOCALE/messages.json`), by name.
    var messages: [String: String]

    /// Permissions Safari knows for a web extension; another is ignored with a warning.
    static let knownPermissions: Set<String> = [
        "activeTab", "alarms", "clipboardWrite", "contextMenus", "cookies", "declarativeNetRequest",
        "declarativeNetRequestFeedback", "declarativeNetRequestWithHostAccess", "menus", "nativeMessaging", "notifications",
        "scripting", "storage", "tabs", "unlimitedStorage", "webNavigation", "webRequest",
    ]

    /// Top-level keys this reader knows; another is a warning that names the likeliest one.
    static let knownKeys: Set<String> = [
        "manifest_version", "name", "version", "description", "default_locale", "icons", "background", "content_scripts",
        "action", "permissions", "optional_permissions", "host_permissions", "optional_host_permissions", "web_accessible_resources",
        "browser_specific_settings", "content_security_policy", "commands", "short_name", "author", "homepage_url",
        "declarative_net_request", "externally_connectable", "minimum_chrome_version", "options_ui", "options_page",
        "browser_action", "page_action",
    ]

    /// `folder` (an extension's, as the harness was given it) from anywhere: node starts where
    /// the harness is, and a finding's scenario may be run from another folder.
    package static func absolute(_ folder: String) -> String {
        folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
    }

    /// What a user can do in the popup, read from its page (PROTOCOL.md section 15).
    struct PopupControls: Equatable, Sendable {
        /// A select, with the values of the options its page gives it (none for one a script fills).
        struct Choice: Equatable, Sendable {
            var id: String
            var values: [String]
        }
        /// The ids of its buttons, inputs and links, in page order (`popup click ID`).
        var clicks: [String] = []
        /// Its selects with an id (`popup choose ID VALUE`).
        var choices: [Choice] = []
        /// The controls that edit the shared settings as the design's popup does: a select with
        /// `data-field="mode"` (`theme`, `nativeDarkPolicy`) sets that field of the record the
        /// popup shows (its empty value resets it), and an element with `data-edit="forget"`
        /// deletes that record.
        var fields: [String: SiteField] = [:]
        var forget: Set<String> = []

        init() {}
    }

    /// The popup's controls, in page order; none without a popup, or for one whose page cannot
    /// be read.
    var popupControls: PopupControls {
        var controls = PopupControls()
        guard let popup, let text = try? String(contentsOfFile: folder + "/" + popup, encoding: .utf8) else { return controls }
        var select: PopupControls.Choice?
        for tag in text.split(separator: "<").dropFirst() {
            let element = tag.prefix { !$0.isWhitespace && $0 != ">" }.lowercased()
            let attributes = tag.prefix { $0 != ">" }.dropFirst(element.count)
            if element == "/select", let finished = select {
                controls.choices.append(finished)
                select = nil
                continue
            }
            if element == "option", select != nil {
                let text = tag.drop { $0 != ">" }.dropFirst().trimmingCharacters(in: .whitespacesAndNewlines)
                select!.values.append(Self.attribute("value", in: attributes, standalone: true) ?? text)
                continue
            }
            // `id=`, and not the end of another name (`data-id=`).
            guard let id = Self.attribute("id", in: attributes, standalone: true), !id.isEmpty else { continue }
            if Self.attribute("data-edit", in: attributes, standalone: true) == "forget" { controls.forget.insert(id) }
            if element == "select" {
                select = PopupControls.Choice(id: id, values: [])
                if let field = Self.attribute("data-field", in: attributes, standalone: true).flatMap(SiteField.init(rawValue:)) { controls.fields[id] = field }
            } else if ["button", "input", "a"].contains(element), !controls.clicks.contains(id) {
                controls.clicks.append(id)
            }
        }
        return controls
    }

    /// `src="x.js"` or `src='x.js'` in a tag; `standalone`: only where the name is a whole one
    /// (after a space), not the end of another.
    static func attribute(_ name: String, in tag: Substring, standalone: Bool = false) -> String? {
        var search = tag[...]
        var found: Range<Substring.Index>?
        while let range = search.range(of: name + "=", options: .caseInsensitive) {
            if !standalone || (range.lowerBound > tag.startIndex && tag[tag.index(before: range.lowerBound)].isWhitespace) {
                found = range
                break
            }
            search = search[range.upperBound...]
        }
        guard let start = found else { return nil }
        let rest = tag[start.upperBound...]
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return String(rest.prefix { !$0.isWhitespace && $0 != ">" }) }
        return String(rest.dropFirst().prefix { $0 != quote })
    }

    /// What is wrong with a folder: every mistake, in file order.
    package struct Problems: Error, Sendable, CustomStringConvertible {
        package var errors: [String]
        package var description: String { errors.joined(separator: "\n") }
    }

    /// Reads `folder`'s manifest and checks every file it names. Returns the manifest and the
    /// warnings, or every mistake.
    package static func load(folder: String) -> Result<(manifest: ExtensionManifest, warnings: [String]), Problems> {
        var reader = ManifestReader(folder: folder)
        guard let manifest = reader.read(), reader.errors.isEmpty else { return .failure(Problems(errors: reader.errors)) }
        return .success((manifest, reader.warnings))
    }

    /// `folder`'s manifest when the harness can run the extension (it loads, and has a
    /// background, the part the harness runs), else what is wrong, in one line.
    static func runnable(folder: String) -> Result<ExtensionManifest, Problems> {
        switch load(folder: folder) {
        case .failure(let problems): .failure(Problems(errors: [problems.errors.joined(separator: "; ")]))
        case .success(let (manifest, _)) where manifest.background == nil:
            .failure(Problems(errors: ["its manifest.json has no background, the part the harness runs"]))
        case .success(let (manifest, _)): .success(manifest)
        }
    }
}
