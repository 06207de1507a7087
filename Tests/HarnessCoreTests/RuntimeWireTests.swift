import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The JavaScript runtime and `ExtensionWire`'s codec speak the same wire: every object the
/// runtime's `directives.mjs` builds is read by the codec, and every input the codec writes is
/// one the runtime takes.
@Suite(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the JavaScript runtime cannot be run"))
struct RuntimeWireTests {
    static let samplesScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JavaScript/wire-samples.mjs").path

    /// What `Tests/JavaScript/wire-samples.mjs` prints: one of each object `directives.mjs`
    /// builds (each frame as the text the runtime writes), and the inputs the runtime says it takes.
    private func samples() throws -> (directives: [JSONValue], frames: [String], inputs: [String]) {
        let run = try NodeRun([Self.samplesScript])
        try #require(run.status == 0, "\(run.stderr)")
        let bytes = Array(run.stdout.utf8)
        guard case .object(let members) = try JSONParser.parse(bytes), case .array(let directives)? = members["directives"],
              case .array(let frames)? = members["frames"], case .array(let inputs)? = members["inputs"] else {
            throw Failure(description: "wire-samples.mjs printed something else: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
        func strings(_ values: [JSONValue]) -> [String] { values.compactMap { if case .string(let text) = $0 { text } else { nil } } }
        return (directives, strings(frames), strings(inputs))
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    @Test func everyDirectiveTheRuntimeBuildsIsReadByTheCodecAsItsOwnType() throws {
        let (directives, _, _) = try samples()
        #expect(directives.count == 22, "one sample for each builder of directives.mjs")
        for directive in directives {
            guard case .object(let members) = directive, case .string(let type)? = members["type"] else {
                Issue.record("a directive with no type: \(directive)")
                continue
            }
            do {
                #expect(ExtensionWire.name(try ExtensionWire.directive(directive)) == type)
            } catch {
                Issue.record("the codec does not read the runtime's '\(type)': \(error)")
            }
        }
    }

    @Test func everyFrameTheRuntimeBuildsIsReadAsTheBackgroundsFrame() throws {
        let (_, frames, _) = try samples()
        var kinds: [String] = []
        for text in frames {
            let bytes = Array(text.utf8)
            guard case .object(let members)? = try? JSONParser.parse(bytes), case .string(let kind)? = members["kind"] else {
                Issue.record("a frame with no kind: \(text)")
                continue
            }
            kinds.append(kind)
            // A host's incarnation that ended on its own is read by its first bytes.
            if kind == "ended" {
                #expect(bytes.starts(with: ContextHost.endedPrefix), "\(text)")
                continue
            }
            // A host's request to be replaced is read as its whole bytes.
            if kind == "retire" {
                #expect(bytes == ContextHost.retireFrame, "\(text)")
                continue
            }
            do {
                let read = try FromChild.decode(bytes, role: .background)
                if case .done(.background(let outputs), _) = read { #expect(outputs.count == 22, "the done frame carries every directive") }
            } catch {
                Issue.record("the background's frame '\(kind)' is not read: \(error)")
            }
        }
        #expect(kinds.sorted() == ["done", "ended", "error", "hello", "log", "retire", "yield"])
    }

    /// One of each input the codec writes; the switch names every case, so a new one must be
    /// given a sample here.
    static let inputs: [ExtensionWire.Event] = [
        .started(appearance: .light, utcOffsetMinutes: 60, tabs: [TabID("t1"): "https://a.example/"], appMessages: true,
                 alarms: ["": ExtensionWire.Alarm(at: 1_772_355_660_000)], reason: .startup),
        .storageCompleted(token: 1),
        .tabRequestedDecision(TabID("t1"), url: "https://a.example/", nativeDark: false),
        .tabNativeDarkChanged(TabID("t1"), nativeDark: true),
        .tabActivated(TabID("t1")),
        .tabClosed(TabID("t1")),
        .safariCameToForeground,
        .appMessageArrived(),
        .appMessageArrived(message: .object(["name": .string("themeChanged"), "userInfo": .object(["theme": .string("sepia")])])),
        .appearanceChanged(.dark),
        .popupOpened(TabID("t1")),
        .popupClosed,
        .popupChoseScope(scope: "a.example"),
        .popupEdited(set: SiteValues(mode: .on), reset: [], message: 1, at: 1_772_355_600_000),
        .popupForgotSite(message: 2, at: nil),
        .popupPaused(until: 1_772_359_200_000),
        .nativeReplyArrived(request: 1, .rejected(.handlerEnded)),
        .timerFired(.script(1)),
        .alarmFired(name: ""),
        .alarmsChanged(alarms: [:]),
        .pageMessage(id: 1, from: .tab(TabID("t1"), url: "https://a.example/"), message: .string("hello"), active: TabID("t1")),
        .pageAnswered(id: 1, answer: nil, unreachable: true),
        .portOpened(port: 1, name: "", from: .popup),
        .portMessage(port: 1, message: .integer(1)),
        .portClosed(port: 1),
        .portClosed(port: -1, error: "Invalid call to tabs.connect(). Tab not found."),
        .storageChanged(area: "local", changes: .object(["theme": .object(["oldValue": .string("light"), "newValue": .string("dark")])])),
        .tabCreated(TabID("t1"), url: "https://a.example/"),
        .tabUpdated(TabID("t1"), url: "https://a.example/", status: .complete),
        .tabsAnswered(request: 1, tab: nil, url: nil, error: "Invalid call to tabs.remove(). Tab not found: x9."),
        .safariWentToBackground,
        .menuClicked(id: .integer(1), parentId: .string("tools"), tab: TabID("t1"), url: "https://a.example/", checked: true, wasChecked: false),
        .commandPressed(name: "toggle", tab: nil, url: nil),
        .actionClicked(TabID("t1"), url: "https://a.example/"),
        .navigated(TabID("t1"), url: "https://a.example/", stage: .completed),
        .permissionsChanged(added: false, permissions: ["tabs"], origins: []),
        .menusChanged(items: [ExtensionMenuItem(id: .string("save"), title: "Save")]),
    ]

    private static func caseNumber(_ event: ExtensionWire.Event) -> Int {
        switch event {
        case .started: 0
        case .storageCompleted: 1
        case .tabRequestedDecision: 2
        case .tabNativeDarkChanged: 3
        case .tabActivated: 4
        case .tabClosed: 5
        case .safariCameToForeground: 6
        case .appMessageArrived: 7
        case .appearanceChanged: 8
        case .popupOpened: 9
        case .popupClosed: 10
        case .popupChoseScope: 11
        case .popupEdited: 12
        case .popupForgotSite: 13
        case .popupPaused: 14
        case .nativeReplyArrived: 15
        case .timerFired: 16
        case .alarmFired: 17
        case .alarmsChanged: 18
        case .pageMessage: 19
        case .pageAnswered: 20
        case .portOpened: 21
        case .portMessage: 22
        case .portClosed: 23
        case .storageChanged: 24
        case .tabCreated: 25
        case .tabUpdated: 26
        case .tabsAnswered: 27
        case .safariWentToBackground: 28
        case .menuClicked: 29
        case .commandPressed: 30
        case .navigated: 31
        case .actionClicked: 32
        case .permissionsChanged: 33
        case .menusChanged: 34
        }
    }

    @Test func theRuntimeTakesExactlyTheInputsTheCodecWrites() throws {
        #expect(Set(Self.inputs.map(Self.caseNumber)) == Set(0...34), "a sample of every input")
        #expect(try samples().inputs == Set(Self.inputs.map(ExtensionWire.name)).sorted())
    }

    @Test func everyInputTheCodecWritesIsTakenByTheRuntimeWithoutAnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runtime-wire-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = try ExtensionRuntime.Session(node: try #require(ExtensionRuntime.installedNode), runtime: try ExtensionRuntime.installed(),
                                                   extension: ExtensionRuntimeTests.fixtures + "/runtime-events", storage: folder)
        for (index, event) in Self.inputs.enumerated() {
            let frames = try #require(try session.exchange(.background(event), now: 1_772_355_600_000 + Int64(index), uptime: Int64(index)),
                                      "the runtime ended at \(ExtensionWire.name(event)): \(session.stderrTail)")
            for case .error(let message) in frames { Issue.record("\(ExtensionWire.name(event)): \(message)") }
            #expect(frames.contains { if case .done = $0 { true } else { false } }, "\(ExtensionWire.name(event)) ends with done")
        }
    }
}

/// The runtime's own JavaScript tests (`Tests/JavaScript`, node's test runner), so that
/// `swift test` runs them too.
@Suite(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the JavaScript runtime cannot be run"))
struct NodeTestRunnerTests {
    @Test func theRuntimesJavaScriptTestsPass() throws {
        let folder = URL(fileURLWithPath: RuntimeWireTests.samplesScript).deletingLastPathComponent().path
        // As the runtimes run: no code from strings in node's realm, jsdom found through NODE_PATH.
        let run = try NodeRun(["--experimental-vm-modules", "--no-warnings", "--disallow-code-generation-from-strings", "--test", folder],
                              environment: PageRuntime.environment)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("\n# fail 0\n") && !run.stdout.contains("\n# pass 0\n"), "\(run.stdout)")
    }
}

/// `node` run to its end with `arguments`: its exit status and what it printed.
struct NodeRun {
    var status: Int32
    var stdout: String
    var stderr: String

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(ExtensionRuntime.installedNode))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is read once standard output ends: the scripts run here print little to it.
        stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        status = process.terminationStatus
    }
}
