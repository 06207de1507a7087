import Foundation
@testable import HarnessCore
import Testing

/// An unpacked extension folder read as Safari reads it: a good one whole, and each kind of
/// mistake reported with its file and where in it, all at once, before anything runs.
struct ExtensionManifestTests {
    static let minimal = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/extensions/minimal").path

    /// A copy of the minimal extension with `change` applied to its manifest's JSON text and
    /// `files` written (nil deletes).
    static func variant(_ change: (String) -> String = { $0 }, files: [String: String?] = [:]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: minimal, toPath: folder)
        let manifest = try String(contentsOfFile: folder + "/manifest.json", encoding: .utf8)
        try change(manifest).write(toFile: folder + "/manifest.json", atomically: true, encoding: .utf8)
        for (name, text) in files {
            if let text { try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) } else { try FileManager.default.removeItem(atPath: folder + "/" + name) }
        }
        return folder
    }

    static func errors(_ folder: String) throws -> [String] {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        switch ExtensionManifest.load(folder: folder) {
        case .success: return []
        case .failure(let problems): return problems.errors.map { $0.replacing(folder, with: "EXT") }
        }
    }

    /// Manifest V2 as Safari takes it: a background of scripts or a page, whose `<script src>`
    /// files load in order, persistent unless it says otherwise (the scenario's platform
    /// decides whether Safari takes it), and a browser action's popup; each version's keys are
    /// its own.
    @Test func aManifestV2ExtensionReadsWithItsBackgroundPage() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HarnessTests/Fixtures/extensions/mv2-page").path
        let (manifest, warnings) = try ExtensionManifest.load(folder: folder).get()
        #expect(warnings.isEmpty && manifest.manifestVersion == 2)
        #expect(manifest.background == ExtensionManifest.Background(scripts: ["lib/count.js", "background.js"], kind: .classic, isServiceWorker: false,
                                                                   page: "background.html"))
        #expect(manifest.popup == "popup.html")
        let v2 = #""manifest_version": 2"#
        #expect(manifest.background?.persistent == false, "it says \"persistent\": false")
        let persistent = try Self.errors(try Self.variant { $0.replacingOccurrences(of: #""manifest_version": 3"#, with: v2) })
        #expect(!persistent.contains { $0.contains("persistent") }, "V2's default, a persistent background, is read: \(persistent)")
        #expect(persistent.contains { $0.contains("action: Manifest V2 names its toolbar item 'browser_action' or 'page_action', not 'action'") }, "\(persistent)")
        let odd = try Self.errors(try Self.variant { $0.replacingOccurrences(of: #""manifest_version": 3"#, with: v2)
            .replacingOccurrences(of: #""background": {"#, with: #""background": {"persistent": "yes", "#) })
        #expect(odd.contains { $0.contains("background.persistent: expected true or false") }, "\(odd)")
        let v1 = try Self.errors(try Self.variant { $0.replacingOccurrences(of: #""manifest_version": 3"#, with: #""manifest_version": 1"#) })
        #expect(v1.contains { $0.contains("manifest_version: expected 3 (Manifest V3) or 2 (Manifest V2), found 1") }, "\(v1)")
        let page = try Self.errors(try Self.variant { $0.replacingOccurrences(of: #""background": {"#, with: #""background": {"page": "popup.html", "#) })
        #expect(page.contains { $0.contains("a background page is Manifest V2's") }, "\(page)")
    }

    @Test func theMinimalExtensionReadsWhole() throws {
        let (manifest, warnings) = try ExtensionManifest.load(folder: Self.minimal).get()
        #expect(warnings.isEmpty)
        #expect(manifest.name == "Minimal")
        #expect(manifest.background == ExtensionManifest.Background(scripts: ["background.js"], kind: .module, isServiceWorker: false))
        #expect(manifest.contentScripts == [ExtensionManifest.ContentScript(matches: ["*://*/*"], js: ["content.js"], css: [], runAt: .documentStart, allFrames: false)])
        #expect(manifest.popup == "popup.html")
        #expect(manifest.permissions == ["storage", "nativeMessaging"])
    }

    @Test func everyMistakeIsNamedWithItsFileAndPlace() throws {
        let broken = try Self.variant({
            $0.replacing(#""manifest_version": 3"#, with: #""manifest_version": 4"#)
                .replacing(#""scripts": ["background.js"]"#, with: #""scripts": ["background.js", "missing.js"], "persistent": true"#)
                .replacing(#""run_at": "document_start""#, with: #""run_at": "document-start""#)
                .replacing(#""matches": ["*://*/*"]"#, with: #""matches": ["example.com"]"#)
        })
        #expect(try Self.errors(broken) == [
            "EXT/manifest.json: manifest_version: expected 3 (Manifest V3) or 2 (Manifest V2), found 4",
            "EXT/manifest.json: background.persistent: a Manifest V3 background cannot be persistent: Safari unloads it when idle",
            "EXT/manifest.json: background.scripts[1]: 'missing.js' is not in the extension",
            "EXT/manifest.json: content_scripts[0].matches[0]: \"example.com\" is not a match pattern: no '://'",
            "EXT/manifest.json: content_scripts[0].matches: expected at least one match pattern",
            "EXT/manifest.json: content_scripts[0].run_at: expected document_start, document_end or document_idle, found \"document-start\"; did you mean 'document_start'?",
        ])
    }

    @Test func aManifestThatIsNotJSONSaysWhere() throws {
        let errors = try Self.errors(try Self.variant({ $0.replacing(#""version": "1.0","#, with: #""version": "1.0""#) }))
        #expect(errors.count == 1 && errors[0].hasPrefix("EXT/manifest.json:7:5: "), "\(errors)")
    }

    @Test func aMessageTheLocaleLacksIsAMistake() throws {
        let errors = try Self.errors(try Self.variant({ $0.replacing("__MSG_extension_name__", with: "__MSG_title__") }))
        #expect(errors == ["EXT/manifest.json: name: \"__MSG_title__\": the default locale has no message 'title'"])
    }

    @Test func thePopupRunsOnlyItsOwnScriptFiles() throws {
        let page = """
            <html><head><script>document.title = "inline"</script>
            <script src="gone.js"></script></head>
            <body><button onclick="toggle()">Toggle</button></body></html>
            """
        #expect(try Self.errors(try Self.variant(files: ["popup.html": page])) == [
            "EXT/popup.html:1: an inline script is refused: Manifest V3's content security policy runs only the extension's own script files (<script src=\"…\">)",
            "EXT/popup.html:2: the script 'gone.js' is not in the extension",
            "EXT/popup.html:3: an inline event handler (onclick) is refused by Manifest V3's content security policy: add a listener from a script file",
        ])
    }

    @Test func aMissingIconOrAnUnknownPermissionIsAWarning() throws {
        let folder = try Self.variant({
            $0.replacing(#""permissions": ["storage", "nativeMessaging"]"#, with: #""permissions": ["storage", "nativeMessage"], "icons": {"48": "images/icon-48.png"}"#)
        })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (_, warnings) = try ExtensionManifest.load(folder: folder).get()
        #expect(warnings.map { $0.replacing(folder, with: "EXT") } == [
            #"EXT/manifest.json: icons["48"]: the icon 'images/icon-48.png' is not in the extension"#,
            "EXT/manifest.json: permissions[1]: 'nativeMessage' is not a permission Safari grants, ignored; did you mean 'nativeMessaging'?",
        ])
    }

    @Test func aFolderWithoutAManifestSaysSo() throws {
        let errors = try Self.errors(try Self.variant(files: ["manifest.json": nil]))
        #expect(errors == ["EXT/manifest.json: no manifest.json in the extension folder"])
    }
}
