import Foundation
import ProcessKit
import SiteSettings

/// Reads a manifest member by member, keeping every mistake and warning.
struct ManifestReader {
    let folder: String
    var errors: [String] = []
    var warnings: [String] = []
    var file = "manifest.json"

    init(folder: String) { self.folder = folder }

    /// `folder/manifest.json`, as a person would give it back to an editor.
    func place(_ path: JSONPath) -> String { "\(folder)/\(file): \(path)" }

    mutating func error(_ path: JSONPath, _ message: String) { errors.append("\(place(path)): \(message)") }

    mutating func read() -> ExtensionManifest? {
        let path = folder + "/manifest.json"
        guard let bytes = FileManager.default.contents(atPath: path) else {
            errors.append("\(path): no manifest.json in the extension folder")
            return nil
        }
        let json: JSONValue
        do { json = try JSONParser.parse(Array(bytes)) } catch {
            errors.append("\(path):\(error.line):\(error.column): \(error.problem)")
            return nil
        }
        guard case .object(let top) = json else {
            errors.append("\(path): expected a JSON object")
            return nil
        }
        let root = JSONPath.root
        for key in top.keys.sorted() where !ExtensionManifest.knownKeys.contains(key) {
            let hint = nearestWord(key, in: Array(ExtensionManifest.knownKeys)).map { "; did you mean '\($0)'?" } ?? ""
            warnings.append("\(place(root.key(key))): not a key this harness reads, ignored\(hint)")
        }
        let manifestVersion: Int
        switch top["manifest_version"] {
        case .integer(3)?: manifestVersion = 3
        case .integer(2)?: manifestVersion = 2
        case let other:
            manifestVersion = 3
            error(root.key("manifest_version"), "expected 3 (Manifest V3) or 2 (Manifest V2), found \(other.map(Self.text) ?? "nothing")")
        }
        let defaultLocale = string(top, "default_locale", at: root, required: false)
        let messages = defaultLocale.map { readMessages($0) } ?? [:]
        let name = localized(string(top, "name", at: root) ?? "", at: root.key("name"), defaultLocale: defaultLocale, messages: messages)
        let version = string(top, "version", at: root) ?? ""
        if case .string(let description)? = top["description"] {
            _ = localized(description, at: root.key("description"), defaultLocale: defaultLocale, messages: messages)
        }
        let background = top["background"].flatMap { readBackground($0, at: root.key("background"), manifestVersion: manifestVersion) }
        var contentScripts: [ExtensionManifest.ContentScript] = []
        if let value = top["content_scripts"] {
            for (index, item) in array(value, at: root.key("content_scripts")).enumerated() {
                if let script = readContentScript(item, at: root.key("content_scripts").index(index)) { contentScripts.append(script) }
            }
        }
        var popup: String?
        var actionDefaults: [ExtensionAction.Property: JSONValue] = [:]
        // V3's toolbar item is `action`; V2's, `browser_action` or `page_action`.
        let actionKeys = manifestVersion == 3 ? ["action"] : ["browser_action", "page_action"]
        for key in ["action", "browser_action", "page_action"] where top[key] != nil && !actionKeys.contains(key) {
            error(root.key(key), "Manifest V\(manifestVersion) names its toolbar item \(actionKeys.map { "'\($0)'" }.joined(separator: " or ")), not '\(key)'")
        }
        for key in actionKeys {
            guard let action = top[key] else { continue }
            let path = root.key(key)
            if case .object(let members) = action {
                let page = string(members, "default_popup", at: path, required: false)
                if let page { checkPopup(page, at: path.key("default_popup")) }
                popup = popup ?? page
                if actionDefaults.isEmpty {
                    actionDefaults = [.badgeText: .string(""), .title: .string(string(members, "default_title", at: path, required: false) ?? ""),
                                      .popup: .string(page ?? ""), .enabled: .bool(key != "page_action")]
                }
                if let icon = members["default_icon"] { checkIcons(icon, at: path.key("default_icon")) }
            } else {
                error(path, "expected an object")
            }
        }
        if let icons = top["icons"] { checkIcons(icons, at: root.key("icons")) }
        var permissions: Set<String> = []
        if let value = top["permissions"] {
            for (index, item) in array(value, at: root.key("permissions")).enumerated() {
                guard case .string(let permission) = item else {
                    error(root.key("permissions").index(index), "expected a string")
                    continue
                }
                if !ExtensionManifest.knownPermissions.contains(permission) {
                    let hint = nearestWord(permission, in: Array(ExtensionManifest.knownPermissions)).map { "; did you mean '\($0)'?" } ?? ""
                    warnings.append("\(place(root.key("permissions").index(index))): '\(permission)' is not a permission Safari grants, ignored\(hint)")
                }
                permissions.insert(permission)
            }
        }
        var hostPermissions: [String] = []
        if let value = top["host_permissions"] {
            for (index, item) in array(value, at: root.key("host_permissions")).enumerated() {
                if let pattern = matchPattern(item, at: root.key("host_permissions").index(index)) { hostPermissions.append(pattern) }
            }
        }
        if background == nil && contentScripts.isEmpty && popup == nil {
            error(root, "names no background, content script or popup: there is nothing to run")
        }
        var manifest = ExtensionManifest(folder: folder, name: name, version: version, background: background, contentScripts: contentScripts,
                                         popup: popup, permissions: permissions, hostPermissions: hostPermissions, defaultLocale: defaultLocale,
                                         messages: messages)
        manifest.manifestVersion = manifestVersion
        manifest.actionDefaults = actionDefaults
        manifest.optionsPage = readOptionsPage(top, at: root)
        if case .object(let commands)? = top["commands"] {
            manifest.commandNames = commands.keys.sorted()
        } else if top["commands"] != nil {
            error(root.key("commands"), "expected an object of commands by name")
        }
        return manifest
    }

    // MARK: - Members

    /// The options page: `options_ui.page`, else V2's `options_page`, a page of the extension's
    /// own that is checked as the popup's is.
    mutating func readOptionsPage(_ top: [String: JSONValue], at root: JSONPath) -> String? {
        var page: String?
        if let value = top["options_ui"] {
            if case .object(let members) = value { page = string(members, "page", at: root.key("options_ui")).map { checkedOptions($0, at: root.key("options_ui").key("page")) } } else {
                error(root.key("options_ui"), "expected an object with the page")
            }
        }
        if page == nil, top["options_page"] != nil, let given = string(top, "options_page", at: root) {
            page = checkedOptions(given, at: root.key("options_page"))
        }
        return page
    }

    /// An options page's path in the extension (a leading `/` is the extension's root), its
    /// file and scripts checked.
    private mutating func checkedOptions(_ page: String, at path: JSONPath) -> String {
        let file = page.hasPrefix("/") ? String(page.dropFirst()) : page
        checkPopup(file, at: path)
        return file
    }

    /// V3's background: `service_worker` or `scripts`, never persistent. V2's: `scripts` or
    /// `page`, persistent unless it says `"persistent": false` (Safari on iOS refuses a
    /// persistent background, "Cannot load persistent background content on this platform",
    /// SAFARI.md: the scenario's platform decides, `ScenarioSetup`).
    mutating func readBackground(_ value: JSONValue, at path: JSONPath, manifestVersion: Int) -> ExtensionManifest.Background? {
        guard case .object(let members) = value else {
            error(path, "expected an object")
            return nil
        }
        var kind = ExtensionManifest.ScriptKind.classic
        if let type = string(members, "type", at: path, required: false) {
            if let known = ExtensionManifest.ScriptKind(rawValue: type) { kind = known } else {
                error(path.key("type"), "expected \"module\" or \"classic\", found \"\(type)\"")
            }
        }
        var persistent = false
        if manifestVersion == 2 {
            switch members["persistent"] {
            case nil, .bool(true)?: persistent = true
            case .bool(false)?: break
            case _?: error(path.key("persistent"), "expected true or false")
            }
            if members["service_worker"] != nil { error(path.key("service_worker"), "Manifest V2 has no service worker: give 'scripts' or 'page'") }
            if let page = string(members, "page", at: path, required: false) {
                if members["scripts"] != nil {
                    error(path, "give 'scripts' or 'page', not both")
                    return nil
                }
                guard checkFile(page, at: path.key("page")) else { return nil }
                checkPopup(page, at: path.key("page"))
                let text = (try? String(contentsOfFile: folder + "/" + page, encoding: .utf8)) ?? ""
                let scripts = text.split(separator: "\n").flatMap { line in
                    line.ranges(of: "<script").compactMap { open in
                        ExtensionManifest.attribute("src", in: line[open.lowerBound...].prefix { $0 != ">" }).map { Self.directory(of: page) + $0 }
                    }
                }
                if scripts.isEmpty { error(path.key("page"), "the background page \(page) loads no script") }
                return ExtensionManifest.Background(scripts: scripts, kind: kind, isServiceWorker: false, page: page, persistent: persistent)
            }
        } else if members["persistent"] == .bool(true) {
            error(path.key("persistent"), "a Manifest V3 background cannot be persistent: Safari unloads it when idle")
        } else if members["page"] != nil {
            error(path.key("page"), "a background page is Manifest V2's: Manifest V3 gives 'service_worker' or 'scripts'")
        }
        switch (members["service_worker"], members["scripts"]) {
        case (.some, .some):
            error(path, "give 'service_worker' or 'scripts', not both")
            return nil
        case (.some, nil):
            guard let script = string(members, "service_worker", at: path), checkFile(script, at: path.key("service_worker")) else { return nil }
            return ExtensionManifest.Background(scripts: [script], kind: kind, isServiceWorker: true)
        case (nil, .some(let scripts)):
            let files = fileList(scripts, at: path.key("scripts"))
            if files.isEmpty { error(path.key("scripts"), "expected at least one script") }
            return ExtensionManifest.Background(scripts: files, kind: kind, isServiceWorker: false, persistent: persistent)
        case (nil, nil):
            error(path, "expected 'service_worker' or 'scripts'")
            return nil
        }
    }

    mutating func readContentScript(_ value: JSONValue, at path: JSONPath) -> ExtensionManifest.ContentScript? {
        guard case .object(let members) = value else {
            error(path, "expected an object")
            return nil
        }
        var matches: [String] = []
        if let value = members["matches"] {
            for (index, item) in array(value, at: path.key("matches")).enumerated() {
                if let pattern = matchPattern(item, at: path.key("matches").index(index)) { matches.append(pattern) }
            }
        }
        if matches.isEmpty { error(path.key("matches"), "expected at least one match pattern") }
        let js = members["js"].map { fileList($0, at: path.key("js")) } ?? []
        let css = members["css"].map { fileList($0, at: path.key("css")) } ?? []
        if js.isEmpty && css.isEmpty { error(path, "expected 'js' or 'css' files to inject") }
        var runAt = ExtensionManifest.ContentScript.RunAt.documentIdle
        if let text = string(members, "run_at", at: path, required: false) {
            if let known = ExtensionManifest.ContentScript.RunAt(rawValue: text) { runAt = known } else {
                let hint = nearestWord(text, in: ExtensionManifest.ContentScript.RunAt.allCases.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
                error(path.key("run_at"), "expected document_start, document_end or document_idle, found \"\(text)\"\(hint)")
            }
        }
        var allFrames = false
        if let value = members["all_frames"] {
            if case .bool(let flag) = value { allFrames = flag } else { error(path.key("all_frames"), "expected true or false") }
        }
        return ExtensionManifest.ContentScript(matches: matches, js: js, css: css, runAt: runAt, allFrames: allFrames)
    }

    /// A match pattern: `<all_urls>`, or `SCHEME://HOST/PATH` with SCHEME `*`, `http`, `https`
    /// or `file`, HOST `*`, `*.` and a domain, or a domain, and PATH starting with `/`.
    mutating func matchPattern(_ value: JSONValue, at path: JSONPath) -> String? {
        guard case .string(let pattern) = value else {
            error(path, "expected a string")
            return nil
        }
        if pattern == "<all_urls>" { return pattern }
        let parts = pattern.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        let problem: String?
        if parts.count != 2 {
            problem = "no '://'"
        } else if !["*", "http", "https", "file"].contains(parts[0]) {
            problem = "the scheme must be *, http, https or file"
        } else if let slash = parts[1].firstIndex(of: "/") {
            let host = parts[1][..<slash]
            if parts[0] != "file" && host.isEmpty {
                problem = "no host"
            } else if host.contains(":") {
                problem = "a match pattern's host has no port"
            } else if host != "*" && host.dropFirst(host.hasPrefix("*.") ? 2 : 0).contains("*") {
                problem = "'*' may only be the whole host or its first label ('*.example.com')"
            } else {
                problem = nil
            }
        } else {
            problem = "no path (end the host with '/', as in 'https://example.com/*')"
        }
        if let problem {
            error(path, "\"\(pattern)\" is not a match pattern: \(problem)")
            return nil
        }
        return pattern
    }

    /// The popup's page: it must exist, and its scripts must be files of the extension, since
    /// Manifest V3's content security policy refuses inline scripts.
    mutating func checkPopup(_ page: String, at path: JSONPath) {
        guard checkFile(page, at: path), let text = try? String(contentsOfFile: folder + "/" + page, encoding: .utf8) else { return }
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = line[...]
            while let open = rest.range(of: "<script", options: .caseInsensitive) {
                let tag = rest[open.lowerBound...].prefix { $0 != ">" }
                let afterTag = rest[tag.endIndex...].dropFirst()
                if let source = ExtensionManifest.attribute("src", in: tag) {
                    if !FileManager.default.fileExists(atPath: folder + "/" + Self.directory(of: page) + source) {
                        errors.append("\(folder)/\(page):\(number + 1): the script '\(source)' is not in the extension")
                    }
                } else if !afterTag.hasPrefix("</script") || line.range(of: "</script", options: .caseInsensitive) == nil {
                    errors.append("\(folder)/\(page):\(number + 1): an inline script is refused: Manifest V3's content security policy runs only the extension's own script files (<script src=\"…\">)")
                } else {
                    errors.append("\(folder)/\(page):\(number + 1): a <script> with neither 'src' nor code: give it the file to load")
                }
                rest = afterTag
            }
            for handler in ["onclick=", "onload=", "onchange=", "oninput=", "onsubmit="] where line.range(of: handler, options: .caseInsensitive) != nil {
                errors.append("\(folder)/\(page):\(number + 1): an inline event handler (\(handler.dropLast())) is refused by Manifest V3's content security policy: add a listener from a script file")
            }
        }
    }

    static func directory(of page: String) -> String {
        page.contains("/") ? String(page[...page.lastIndex(of: "/")!]) : ""
    }

    mutating func checkIcons(_ value: JSONValue, at path: JSONPath) {
        switch value {
        case .string(let file):
            if !exists(file) { warnings.append("\(place(path)): the icon '\(file)' is not in the extension") }
        case .object(let sizes):
            for (size, file) in sizes.sorted(by: { $0.key < $1.key }) {
                guard case .string(let file) = file else {
                    error(path.key(size), "expected a file name")
                    continue
                }
                if !exists(file) { warnings.append("\(place(path.key(size))): the icon '\(file)' is not in the extension") }
            }
        default:
            error(path, "expected a file name or an object of sizes to file names")
        }
    }

    // MARK: - Localized strings

    /// `_locales/LOCALE/messages.json`: `{"name": {"message": "…"}}`.
    mutating func readMessages(_ locale: String) -> [String: String] {
        let relative = "_locales/\(locale)/messages.json"
        let before = file
        defer { file = before }
        file = relative
        guard let bytes = FileManager.default.contents(atPath: folder + "/" + relative) else {
            errors.append("\(folder)/\(relative): missing, though manifest.json sets default_locale \"\(locale)\"")
            return [:]
        }
        guard let json = try? JSONParser.parse(Array(bytes)), case .object(let entries) = json else {
            errors.append("\(folder)/\(relative): not a JSON object")
            return [:]
        }
        var messages: [String: String] = [:]
        for (name, entry) in entries {
            guard case .object(let members) = entry, case .string(let message)? = members["message"] else {
                error(JSONPath.root.key(name), "expected an object with a string 'message'")
                continue
            }
            messages[name.lowercased()] = message
        }
        return messages
    }

    /// `__MSG_name__` replaced by the default locale's message (names match in any case).
    mutating func localized(_ text: String, at path: JSONPath, defaultLocale: String?, messages: [String: String]) -> String {
        guard text.hasPrefix("__MSG_"), text.hasSuffix("__"), text.count > 8 else { return text }
        let name = String(text.dropFirst(6).dropLast(2))
        guard defaultLocale != nil else {
            error(path, "\"\(text)\" needs default_locale and its _locales folder")
            return text
        }
        guard let message = messages[name.lowercased()] else {
            error(path, "\"\(text)\": the default locale has no message '\(name)'")
            return text
        }
        return message
    }

    // MARK: - Values and files

    mutating func string(_ members: [String: JSONValue], _ key: String, at path: JSONPath, required: Bool = true) -> String? {
        switch members[key] {
        case .string(let text)?: return text
        case nil:
            if required { error(path.key(key), "missing") }
            return nil
        case let other?:
            error(path.key(key), "expected a string, found \(Self.text(other))")
            return nil
        }
    }

    mutating func array(_ value: JSONValue, at path: JSONPath) -> [JSONValue] {
        guard case .array(let items) = value else {
            error(path, "expected an array")
            return []
        }
        return items
    }

    /// Files named in an array, each of which must be in the extension.
    mutating func fileList(_ value: JSONValue, at path: JSONPath) -> [String] {
        var files: [String] = []
        for (index, item) in array(value, at: path).enumerated() {
            guard case .string(let file) = item else {
                error(path.index(index), "expected a file name")
                continue
            }
            if checkFile(file, at: path.index(index)) { files.append(file) }
        }
        return files
    }

    /// Whether `file` is a file inside the extension; an error naming it when not.
    mutating func checkFile(_ file: String, at path: JSONPath) -> Bool {
        if file.hasPrefix("/") || file.split(separator: "/").contains("..") {
            error(path, "'\(file)' is outside the extension folder")
            return false
        }
        guard exists(file) else {
            error(path, "'\(file)' is not in the extension")
            return false
        }
        return true
    }

    func exists(_ file: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder + "/" + file, isDirectory: &isFolder) && !isFolder.boolValue
    }

    static func text(_ value: JSONValue) -> String {
        String(String(decoding: JSONWriter.compact(value), as: UTF8.self).prefix(40))
    }
}
