import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The JavaScript runtime on `node`, fed frames as the harness sends them: what a background
/// script sees (the harness's time, seeded random numbers, no Node globals), which listeners
/// wake it, and what it does wrong said with its place, without ending the process.
@Suite(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the JavaScript runtime cannot be run"))
struct ExtensionRuntimeTests {
    static let node = ExtensionRuntime.installedNode
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/extensions").path

    /// The frames of each input, up to and including its `done` or `error`, as the harness
    /// reads them.
    private struct Run {
        var answers: [[FromChild]] = []
        /// How the runtime ended, when it ended before the last input's end.
        var ended: String?

        /// The messages the scripts logged, in order, across every input.
        var logs: [String] {
            answers.joined().compactMap { frame in
                guard case .log(_, let message, let at) = frame else { return nil }
                return at.map { "\(message) @ \($0)" } ?? message
            }
        }

        /// The last frame of input `index`.
        func end(_ index: Int) -> FromChild? { answers.indices.contains(index) ? answers[index].last : nil }
    }

    /// Starts the runtime for `fixture` and hands it `inputs` (each an input's JSON), `now` and
    /// `uptime` as given, one after another.
    /// `storage` is the folder of the background's storage (a fresh one when nil); `answer`
    /// answers each yield point (`continue` unless it says otherwise).
    private func run(_ fixture: String, seed: Int = 7, watchdog: Int = 2_000, environment: [String: String] = [:], storage: String? = nil,
                     answer: (YieldPoint) -> ToChild = { _ in .proceed(now: 0) },
                     _ inputs: [(input: String, now: Int, uptime: Int)]) throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runtime-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = try ExtensionRuntime.Session(node: try #require(Self.node), runtime: try ExtensionRuntime.installed(),
                                                   extension: Self.fixtures + "/" + fixture, storage: storage ?? folder,
                                                   watchdogMilliseconds: watchdog, environment: ExtensionRuntime.environment.merging(environment) { _, given in given })
        var run = Run()
        for (input, now, uptime) in inputs {
            let frame = #"{"kind":"input","now":\#(now),"uptime":\#(uptime),"seed":\#(seed),"flaws":[],"input":\#(input)}"#
            guard let answer = try session.exchange(frame: Array(frame.utf8), answer: answer) else {
                run.answers.append(session.unfinished)
                run.ended = session.ending
                break
            }
            run.answers.append(answer)
        }
        return run
    }

    private static let started = #"{"type":"started","appearance":"light","tabs":{}}"#
    private static let epoch = 1_772_355_600_000

    private func done(_ outputs: [ExtensionWire.Output]) -> FromChild { .done(.background(outputs)) }

    @Test func theListenersOfTheLoadAreTheOnesThatWakeAndTimersAreTheHarnesss() throws {
        let run = try run("runtime-classic", [(Self.started, Self.epoch, 5), (#"{"type":"timerFired","timer":{"script":1}}"#, Self.epoch + 1_000, 1_005)])
        // The message listener at the top level and the one added in a microtask are the load's;
        // the one its timer adds is said when the timer's turn ends. The timer is the harness's
        // to fire, at the script's time.
        #expect(run.end(0) == done([.listen([.message, .tabActivated]), .setTimer(.script(1), at: Int64(Self.epoch + 1_000))]))
        #expect(run.end(1) == done([.listen([.message, .tabActivated, .windowFocus])]))
        #expect(run.logs.contains("timer \(Self.epoch + 1_000) 1005"))
    }

    /// A background page whose scripts name the DOM has its document, jsdom's, over its own
    /// page: the page's elements, DOMParser, the document's events and location; mutation records
    /// in the turn that made them, each round of observers in turn; jsdom's own later work on the
    /// harness's timers, at the harness's time.
    @Test(.enabled(if: PageRuntime.jsdomMissing == nil, "jsdom is not installed: a background page has no document"))
    func aBackgroundPageThatNamesTheDOMHasItsOwnDocument() throws {
        let run = try run("background-document", [(Self.started, Self.epoch, 5), (#"{"type":"timerFired","timer":{"script":1}}"#, Self.epoch + 7, 12)])
        #expect(run.logs == [
            "parsed 2 safari-web-extension://extension/background.html function true true",
            "ping 3 true",
            "mutations SPAN DETAILS \(Self.epoch)",
            "mutations EM \(Self.epoch)",
            "loading loading | DOMContentLoaded interactive kept in the page | load complete",
            "toggled \(Self.epoch + 7)",
        ], "\(run.logs)")
        #expect(run.end(0) == done([.listen([]), .setTimer(.script(1), at: Int64(Self.epoch))]))
    }

    /// A module background page's changes to its document are heard in the turn that made them,
    /// as a classic page's are: its top-level code's before its load, its load listener's
    /// before onInstalled, each under the watchdog.
    @Test(.enabled(if: PageRuntime.jsdomMissing == nil, "jsdom is not installed: a background page has no document"))
    func aModuleBackgroundPageHearsItsDocumentsChangesInTheTurnThatMadeThem() throws {
        let run = try run("background-document-module", [(#"{"type":"started","appearance":"light","tabs":{},"reason":"install"}"#, Self.epoch, 5)])
        // (Records come once the turn's own microtasks ran, the await's among them: jsdom queues
        // them on node's queue, not the realm's.)
        #expect(run.logs == ["after the await", "mutations B", "loaded", "mutations I", "installed"], "\(run.logs)")
    }

    /// Mutation observers that answer each other without end are a script that never yields:
    /// the incarnation ends with the watchdog's status.
    @Test(.enabled(if: PageRuntime.jsdomMissing == nil, "jsdom is not installed: a background page has no document"))
    func observersThatAnswerEachOtherWithoutEndEndTheIncarnation() throws {
        let run = try run("background-document-endless", [(Self.started, Self.epoch, 5)])
        #expect(run.logs.contains("Uncaught Error: the page's mutation observers changed its document in answer to each other 1000 times in one turn"), "\(run.logs)")
        #expect(run.ended == "a script did not yield within 2 s, and its runtime ended it", "\(run.ended ?? "it went on")")
    }

    @Test func scriptsReadTheHarnesssClockAndRandomNumbersSeededByTheRun() throws {
        let first = try run("runtime-classic", [(Self.started, Self.epoch, 5)])
        #expect(first.logs.contains("time \(Self.epoch) 2026-03-01T09:00:00.000Z 5"))
        let random = try #require(first.logs.first { $0.hasPrefix("random ") })
        #expect(try run("runtime-classic", [(Self.started, Self.epoch, 5)]).logs.contains(random), "the same seed gives the same numbers")
        #expect(try !run("runtime-classic", seed: 8, [(Self.started, Self.epoch, 5)]).logs.contains(random), "another seed other numbers")
        let uuid = try #require(random.split(separator: " ").last)
        #expect(uuid.count == 36 && uuid.dropFirst(14).first == "4", "a version 4 UUID: \(uuid)")
    }

    @Test func theGlobalObjectIsABackgroundPagesNotNodes() throws {
        let logs = try run("runtime-classic", [(Self.started, Self.epoch, 5)]).logs
        #expect(logs.contains("globals undefined undefined undefined undefined function"),
                "no process, require or Buffer; alarms absent without its permission; WeakRef kept, but strong")
        #expect(logs.contains("eval EvalError"), "code from strings is refused, as MV3's content security policy does")
        #expect(logs.contains("missing browser.windows.create is not provided by the harness's runtime"))
        #expect(logs.contains("imported object"), "importScripts runs a classic worker's other script")
        #expect(logs.contains("import escapes EvalError EvalError"), "importScripts fails with the realm's own errors")
    }

    @Test func nothingAScriptCanReachBelongsToTheRuntimesRealmAndTimeIsTheFramesInUTC() throws {
        let run = try run("runtime-escape", environment: ["TZ": "America/New_York"],
                          [(Self.started, Self.epoch, 5), (#"{"type":"safariCameToForeground"}"#, Self.epoch + 10, 15)])
        #expect(run.logs == [
            "global escapes EvalError EvalError EvalError EvalError",
            "at the limit EvalError EvalError EvalError EvalError EvalError",
            "import at the limit EvalError",
            "import rejections at the limit EvalError",
            "escapes EvalError EvalError EvalError EvalError EvalError EvalError",
            "missing member true browser.runtime.getBackgroundPage is not provided by the harness's runtime",
            "absent undefined undefined undefined undefined",
            "turn kept TypeError",
            "clock Sun Mar 01 2026 09:00:00 GMT+0000 (Coordinated Universal Time) 0 true 9:00 AM",
            "stack Error: here |    at where (background.js:30:27) |    at background.js:31:22",
            "Uncaught a thrown object",
            "Uncaught a thrown object",
            "Uncaught (in promise) Error: later @ background.js:38:16",
            // (The refusal settles through the runtime's realm: the scripts hear it in their next turn.)
            "import TypeError EvalError",
        ], "\(run.logs)")
        #expect(run.end(0) == done([.listen([]), .setTimer(.script(1), at: Int64(Self.epoch)), .setTimer(.script(2), at: Int64(Self.epoch)),
                                    .setTimer(.script(3), at: Int64(Self.epoch)), .setTimer(.script(4), at: Int64(Self.epoch + 1))]))
    }

    /// What a script cannot do to the runtime: run its code outside the watchdog (through node's
    /// lookup of the stack formatter, its decoration of a thrown value, a stack too long to read
    /// quickly, a thrown value of a script importScripts runs) or end the process.
    @Test func noScriptRunsOutsideTheWatchdogOrEndsTheRuntime() throws {
        let outside = try run("runtime-outside", watchdog: 500, [(Self.started, Self.epoch, 5), (#"{"type":"tabActivated","tab":"t1"}"#, Self.epoch + 10, 15)])
        #expect(outside.logs == [
            "Uncaught TypeError: Cannot redefine property: Error @ error-global.js:3:8",
            "Uncaught a thrown object @ message-getter.js:2:15",
            "Uncaught a thrown object",
            "Uncaught a proxy",
            "Uncaught Error: a long stack",
        ], "\(outside.logs)")
        #expect(outside.answers.count == 1 && outside.ended == "a script did not yield within 500 ms, and its runtime ended it",
                "the watchdog ends a script that never yields, and the runtime with it: \(outside.ended ?? "it went on")")
        // A worker's script that importScripts runs throws a proxy whose trap loops: the runtime
        // does not read it outside the watchdog.
        let imported = try run("runtime-import-proxy", watchdog: 500, [(Self.started, Self.epoch, 5)])
        #expect(imported.logs == ["imported threw object"], "\(imported.logs)")
        #expect(imported.ended == "a script did not yield within 500 ms, and its runtime ended it", "\(imported.ended ?? "it went on")")
    }

    /// Section 8.2's inputs reach the browser.* events they stand for; a tab's question is the
    /// decision message, and its first answer, now or in a later turn, is the tab's decision.
    @Test func inputsReachTheirEventsAndAnAnswerToTheDecisionMessageIsTheTabsDecision() throws {
        func decision(_ theme: String) throws -> Decision {
            try Decision.decode(JSONParser.parse(#"{"enabled":true,"theme":"\#(theme)","reason":"modeOn","scope":null,"mode":"on","nativeDarkPolicy":"respect","schedule":"20:00-06:00","source":{"mode":"default","theme":"default","nativeDarkPolicy":"default"}}"#))
        }
        let url = "https://docs.example.com/guide"
        let run = try run("runtime-events", [
            (Self.started, Self.epoch, 5),
            (#"{"type":"tabRequestedDecision","tab":"t1","url":"\#(url)","nativeDark":false}"#, Self.epoch + 10, 15),
            (#"{"type":"tabRequestedDecision","tab":"t2","url":"\#(url)","nativeDark":true}"#, Self.epoch + 20, 25),
            (#"{"type":"timerFired","timer":{"script":1}}"#, Self.epoch + 120, 125),
            (#"{"type":"tabActivated","tab":"t2"}"#, Self.epoch + 130, 135),
            (#"{"type":"tabClosed","tab":"t1"}"#, Self.epoch + 140, 145),
            (#"{"type":"safariCameToForeground"}"#, Self.epoch + 150, 155),
            (#"{"type":"tabNativeDarkChanged","tab":"t2","nativeDark":true}"#, Self.epoch + 160, 165),
            (#"{"type":"appearanceChanged","appearance":"dark"}"#, Self.epoch + 170, 175),
        ])
        #expect(run.end(0) == done([.listen([.message, .tabActivated, .tabRemoved, .windowFocus])]))
        #expect(run.end(1) == done([.sendDecision(TabID("t1"), try decision("sepia"))]), "the first answer counts")
        #expect(run.end(2) == done([.setTimer(.script(1), at: Int64(Self.epoch + 120))]))
        #expect(run.end(3) == done([.sendDecision(TabID("t2"), try decision("gray"))]), "a promise's answer, in the turn that resolves it")
        #expect(run.end(7) == done([.sendDecision(TabID("t2"), try decision("invert"))]), "a tab's message: its answer is the tab's decision")
        #expect(run.end(8) == done([]), "no tab, no decision")
        #expect(run.logs == ["asked t1 \(url) false", "Uncaught Error: second listener fails @ background.js:19:53",
                             "asked t2 \(url) true", "Uncaught Error: second listener fails @ background.js:19:53",
                             "activated t2 1", "removed t1", "focus 1",
                             "Uncaught Error: second listener fails @ background.js:19:53", "native dark t2 true",
                             "Uncaught Error: second listener fails @ background.js:19:53", "appearance dark undefined"], "\(run.logs)")
    }

    /// The popup's messages come from the popup's page, and an answer to a numbered one is its
    /// popupAnswer; the background's view for the popup and its decision for a tab are the only
    /// messages its pages take; tabs.query, getPlatformInfo and matchMedia give what Safari
    /// told it at start; the app's message arrives on the native port; the one alarm is set
    /// and fires with its name.
    @Test func thePopupsMessagesAndAnswersThePagesMessagesThePlatformThePortAndTheAlarm() throws {
        let started = #"{"type":"started","appearance":"dark","appMessages":true,"tabs":{"t1":"https://docs.example.com/guide","t2":"https://a.example.org/"}}"#
        let view = #"{"tab":"t1","url":"about:blank","unsupported":true,"scopes":[],"selectedScope":null,"pausedUntil":null}"#
        let run = try run("runtime-popup", [
            (started, Self.epoch, 5),
            (#"{"type":"popupOpened","tab":"t1"}"#, Self.epoch + 10, 15),
            (#"{"type":"popupEdited","set":{"mode":"off"},"reset":[],"message":1,"at":\#(Self.epoch + 19)}"#, Self.epoch + 20, 25),
            (#"{"type":"timerFired","timer":{"script":1}}"#, Self.epoch + 30, 35),
            (#"{"type":"popupForgotSite","message":2}"#, Self.epoch + 40, 45),
            (#"{"type":"appMessageArrived"}"#, Self.epoch + 50, 55),
            (#"{"type":"appearanceChanged","appearance":"light"}"#, Self.epoch + 60, 65),
            (#"{"type":"popupClosed"}"#, Self.epoch + 70, 75),
            (#"{"type":"alarmFired","name":"later"}"#, Self.epoch + 60_070, 60_075),
        ])
        #expect(run.end(0) == done([.listen([.alarm, .message]), .connectNative]))
        #expect(run.end(1) == done([.showPopup(try PopupView.decode(JSONParser.parse(view)))]))
        #expect(run.end(2) == done([.setTimer(.script(1), at: Int64(Self.epoch + 30))]))
        #expect(run.end(3) == done([.popupAnswer(message: 1, saved: true, scope: try ScopeKey.parse("docs.example.com"))]), "an answer after return true")
        #expect(run.end(4) == done([.popupAnswer(message: 2, saved: false, scope: nil)]), "a promise's answer")
        #expect(run.end(7) == done([.setAlarm(at: Int64(Self.epoch + 60_070), name: "later")]))
        // Whole tabs.Tab objects: in the one window, loaded, none pinned, muted or discarded.
        let tab = { (id: String, index: Int, url: String) in
            #"{"id":"\#(id)","index":\#(index),"windowId":1,"active":false,"highlighted":false,"pinned":false,"incognito":false,"discarded":false,"#
                + #""autoDiscardable":true,"audible":false,"mutedInfo":{"muted":false},"status":"complete","url":"\#(url)"}"#
        }
        let tabs = "[" + tab("t1", 0, "https://docs.example.com/guide") + "," + tab("t2", 1, "https://a.example.org/") + "]"
        #expect(run.logs == ["platform mac", "tabs \(tabs)",
                             "from safari-web-extension://extension/popup.html popupOpened",
                             "refused Could not establish connection. Receiving end does not exist. (The harness's content script takes only {type: \"decision\", decision} from the background, PROTOCOL.md section 14.)",
                             "from safari-web-extension://extension/popup.html popupEdited",
                             "from safari-web-extension://extension/popup.html popupForgotSite",
                             "app says documentChanged", "media false", "from nowhere appearanceChanged",
                             "from safari-web-extension://extension/popup.html popupClosed",
                             "alarm later \(Self.epoch + 60_070)"], "\(run.logs)")
    }

    /// A page's port reaches runtime.onConnect with its name and sender; the page's messages
    /// fire the port's onMessage and the background's posts leave as `portPost`; the
    /// background's disconnect leaves as `portClose` and a post after it throws; the page's
    /// end closing fires onDisconnect.
    @Test func aPagesPortReachesOnConnectAndCarriesMessagesBothWays() throws {
        let run = try run("ports", [
            (Self.started, Self.epoch, 5),
            (#"{"type":"portOpened","port":4,"name":"first","tab":"t1","url":"https://a.example/"}"#, Self.epoch + 10, 15),
            (#"{"type":"portMessage","port":4,"message":"hello"}"#, Self.epoch + 20, 25),
            (#"{"type":"portMessage","port":4,"message":"bye"}"#, Self.epoch + 30, 35),
            (#"{"type":"portOpened","port":5,"name":"","popup":true}"#, Self.epoch + 40, 45),
            (#"{"type":"portClosed","port":5}"#, Self.epoch + 50, 55),
            (#"{"type":"portMessage","port":5,"message":"gone"}"#, Self.epoch + 60, 65),
        ])
        #expect(run.end(0) == done([.listen([.connect])]))
        #expect(run.end(2) == done([.postOnPort(port: 4, message: .string("echo hello"))]))
        #expect(run.end(3) == done([.closePort(port: 4)]))
        #expect(run.end(6) == done([]), "a port closed at the page's end hears nothing more")
        #expect(run.logs == ["connect first t1 https://a.example/", "heard \"hello\" true", "heard \"bye\" true",
                             "after the port is disconnected", "connect  undefined undefined", "closed true"], "\(run.logs)")
    }

    /// A listener's promise that rejects is no answer, and nothing reported (WebKit drops the
    /// rejection): the page waits on (WebKit's reply holder lives until the collector takes
    /// `sendResponse`, at the latest until the background unloads, when Safari answers it with
    /// nothing), and one that returned true still answers later.
    @Test func aListenersRejectedPromiseLeavesThePageWaitingAndIsNotReported() throws {
        let message = { (id: Int, kind: String) in
            #"{"type":"pageMessage","id":\#(id),"tab":"t1","url":"https://a.example/","message":{"kind":"\#(kind)"}}"#
        }
        let run = try run("answers", [
            (Self.started, Self.epoch, 5),
            (message(1, "reject"), Self.epoch + 10, 15),
            (message(2, "held"), Self.epoch + 20, 25),
            (#"{"type":"timerFired","timer":{"script":1}}"#, Self.epoch + 25, 30),
            (message(3, "resolve"), Self.epoch + 30, 35),
        ])
        #expect(run.end(1) == done([]), "no answer until the background goes")
        #expect(run.end(2) == done([.setTimer(.script(1), at: Int64(Self.epoch + 25))]), "a listener that returned true holds the answer")
        #expect(run.end(3) == done([.answerPage(id: 2, answer: .string("later"))]))
        #expect(run.end(4) == done([.answerPage(id: 3, answer: .object(["ok": .bool(true)]))]))
        #expect(run.logs.isEmpty, "\(run.logs)")
    }

    /// Local time follows the offset Safari's start gives: a date's local fields, its text,
    /// local components and zone-less text read back, setters, and Intl where ICU has a zone
    /// for the offset (whole hours); another offset formats in UTC.
    @Test func localTimeIsTheScenariosOffset() throws {
        func logs(offset: Int) throws -> [String] {
            try run("runtime-time", [(#"{"type":"started","appearance":"light","tabs":{},"utcOffsetMinutes":\#(offset)}"#, Self.epoch, 5)]).logs
        }
        #expect(try logs(offset: 60) == [
            "local 10 0 -60 Sun Mar 01 2026 10:00:00 GMT+0100",
            "read 2026-03-01T09:00:00.000Z 2026-03-01T09:00:00.000Z 2026-03-01T00:00:00.000Z \(Self.epoch + 3_600_000)",
            "set 2026-03-01T22:30:00.000Z 1",
            "intl 10:00 10:00:00",
        ])
        #expect(try logs(offset: 330) == [
            "local 14 30 -330 Sun Mar 01 2026 14:30:00 GMT+0530",
            "read 2026-03-01T04:30:00.000Z 2026-03-01T04:30:00.000Z 2026-03-01T00:00:00.000Z \(Self.epoch + 3_600_000)",
            "set 2026-03-01T18:00:00.000Z 1",
            "intl 09:00 09:00:00",
        ])
        #expect(try logs(offset: -600).first == "local 23 0 600 Sat Feb 28 2026 23:00:00 GMT-1000")
    }

    /// i18n.getMessage reads the default locale's messages: placeholders, numbered
    /// substitutions, `$$`, a name it does not have ("") and Safari's predefined messages; an
    /// address the scenario gives no answer for fails, naming it.
    @Test func messagesComeFromTheDefaultLocaleAndTheNetworkIsRefused() throws {
        let logs = try run("runtime-i18n", [(Self.started, Self.epoch, 5)]).logs
        #expect(logs == ["i18n Hello Ada, you have 3 tabs ($ free) |  | en_GB en-GB Runtime i18n check",
                         #"inherited "" true 0"#,
                         "fetch Failed to fetch https://example.com/: the scenario gives no answer for it (fetch URL STATUS BODY)", "window 2 0"], "\(logs)")
    }

    /// Safari's quotas: a set that would take storage.local past 5 MiB fails and writes
    /// nothing; storage.session holds up to 10 MiB; getBytesInUse counts keys and JSON values.
    @Test func aSetOverItsAreasQuotaFailsAndWritesNothing() throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("quota-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: storage) }
        let completed = { (token: Int) in (#"{"type":"storageCompleted","token":\#(token)}"#, Self.epoch + token, 5 + token) }
        let run = try run("runtime-quota", storage: storage, [(Self.started, Self.epoch, 5), completed(1), completed(2), completed(3)])
        #expect(run.logs == ["quotas 5242880 10485760",
                             "local refused: browser.storage.local.set(): exceeded storage quota (6291461 bytes, over 5242880): nothing was saved",
                             "session holds 6291461"], "\(run.logs)")
        #expect(!FileManager.default.fileExists(atPath: storage + "/local.json"))
        #expect(!run.answers.joined().contains(.yield(.storageWriteTemp, seq: 2)), "refused before its write")
    }

    /// storage.local lives in local.json across incarnations, loaded at `storage-read` and saved
    /// through `storage-write-temp` and `storage-rename`; each call finishes when the harness
    /// completes its token; a failed step fails the call.
    @Test func storageGoesThroughItsYieldPointsAndFinishesAtItsCompletion() throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: storage) }
        let completed = { (token: Int) in #"{"type":"storageCompleted","token":\#(token)}"# }
        let inputs = [(Self.started, Self.epoch, 5), (completed(1), Self.epoch + 1, 6), (completed(2), Self.epoch + 2, 7)]
        let first = try run("runtime-storage", storage: storage, inputs)
        #expect(first.answers[0].contains(.yield(.storageRead, seq: 1)))
        // Its storage.onChanged listener is one Safari keeps: a page's change would wake it.
        #expect(first.end(0) == done([.listen([.storageChanged]), .storagePending(token: 1)]))
        #expect(first.answers[1].filter { if case .yield = $0 { true } else { false } } == [.yield(.storageWriteTemp, seq: 2), .yield(.storageRename, seq: 3)])
        // Safari hears its own change, by key (without its pages, the values are not needed).
        #expect(first.end(1) == done([.storagePending(token: 2), .storageChanged(area: "local", changes: .object(["loads": .object([:])]))]))
        #expect(first.logs == ["loads 0", #"changed local {"loads":{"newValue":1}}"#, "saved"], "\(first.logs)")
        #expect(try String(contentsOfFile: storage + "/local.json", encoding: .utf8) == #"{"loads":1}"#)
        // The next incarnation reads what this one saved.
        #expect(try run("runtime-storage", storage: storage, inputs).logs.first == "loads 1")
        // A write that fails fails the call, and nothing is saved.
        let failing = try run("runtime-storage", storage: storage, answer: { point in
            point == .storageWriteTemp ? .fail(errno: 28, now: 0) : .proceed(now: 0)
        }, inputs)
        #expect(failing.logs == ["loads 2", "not saved: storage.local could not be saved: the write failed with errno 28"], "\(failing.logs)")
        #expect(try String(contentsOfFile: storage + "/local.json", encoding: .utf8) == #"{"loads":2}"#)
        // A load that fails fails that call only: the next call loads again.
        var reads = 0
        let unread = try run("runtime-storage", storage: storage, answer: { point in
            guard point == .storageRead else { return .proceed(now: 0) }
            reads += 1
            return reads == 1 ? .fail(errno: 5, now: 0) : .proceed(now: 0)
        }, inputs + [(completed(3), Self.epoch + 3, 8)])
        #expect(reads == 2)
        #expect(unread.logs == ["not saved: storage.local could not be read", "loads 2", #"changed local {"loads":{"oldValue":2,"newValue":3}}"#,
                                "saved at the second try"], "\(unread.logs)")
    }

    /// runtime.sendNativeMessage, with an application id or without, with a promise or a
    /// callback, is a request of the background's carrying any JSON value as it was given; its
    /// reply, as the handler gave it, or Safari's rejection, in Safari's words, settles it.
    @Test func aNativeMessageIsARequestAndItsReplyOrRejectionSettlesIt() throws {
        let run = try run("runtime-native", [
            (Self.started, Self.epoch, 5),
            (#"{"type":"nativeReplyArrived","request":1,"reply":{"type":"notModified","documentId":"d","revision":3}}"#, Self.epoch + 1, 6),
            (#"{"type":"nativeReplyArrived","request":2,"rejected":"handlerEnded"}"#, Self.epoch + 2, 7),
            (#"{"type":"nativeReplyArrived","request":3,"reply":{"mode":"sepia","since":[2024]}}"#, Self.epoch + 3, 8),
            (#"{"type":"nativeReplyArrived","request":4,"reply":"pong"}"#, Self.epoch + 4, 9),
            (#"{"type":"nativeReplyArrived","request":5,"rejected":"tooManyRequests"}"#, Self.epoch + 5, 10),
            (#"{"type":"nativeReplyArrived","request":6,"reply":{"ok":true}}"#, Self.epoch + 6, 11),
            (#"{"type":"nativeReplyArrived","request":7,"rejected":"handlerEnded"}"#, Self.epoch + 7, 12),
            (#"{"type":"nativeReplyArrived","request":8}"#, Self.epoch + 8, 13),
            (#"{"type":"nativeReplyArrived","request":9,"rejected":"canceled"}"#, Self.epoch + 9, 14),
        ])
        #expect(run.end(0) == done([.listen([]), .sendNative(request: 1, .getSnapshot(known: nil)), .sendNative(request: 2, .getEnabled),
                                    .sendNative(request: 3, .other(.object(["type": .string("getDefault"), "key": .string("mode")]))),
                                    .sendNative(request: 4, .other(.string("ping"))),
                                    .sendNative(request: 5, .other(.array([.integer(1), .integer(2)]))),
                                    .connectNative, .sendNative(request: 6, .other(.object(["type": .string("hello")]))), .sendNative(request: 7, .other(.string("bye"))),
                                    .sendNative(request: 8, .other(.object(["type": .string("nothing")]))),
                                    .sendNative(request: 9, .other(.object(["type": .string("cancel")])))]))
        #expect(run.logs == [#"reply {"type":"notModified","documentId":"d","revision":3}"#,
                             "rejected Invalid call to runtime.sendNativeMessage(). The native extension was interrupted or crashed.",
                             #"own {"mode":"sepia","since":[2024]}"#, #"callback "pong" undefined"#,
                             "callback undefined Invalid call to runtime.sendNativeMessage(). There are too many active native message requests.",
                             #"port heard {"ok":true}"#, "port gone", "post after the port is disconnected", "nothing undefined",
                             "canceled Invalid call to runtime.sendNativeMessage(). The native extension canceled the request or encountered an error."],
                "\(run.logs)")
    }

    @Test func anUncaughtErrorAndAnUnhandledRejectionAreLoggedWithTheirPlaceAndTheBackgroundLivesOn() throws {
        let run = try run("runtime-classic", [(Self.started, Self.epoch, 5), (#"{"type":"timerFired","timer":{"script":1}}"#, Self.epoch + 1_000, 1_005)])
        #expect(run.logs.contains("Uncaught TypeError: Cannot read properties of null (reading 'missing') @ background.js:17:6"), "\(run.logs)")
        #expect(run.logs.contains("Uncaught (in promise) Error: nobody catches this @ background.js:16:16"), "\(run.logs)")
        #expect(run.end(1) == done([.listen([.message, .tabActivated, .windowFocus])]), "the next input is handled")
        #expect(run.answers[0].contains(.log(level: .error, message: "Uncaught TypeError: Cannot read properties of null (reading 'missing')", at: "background.js:17:6")))
    }

    @Test func aModuleBackgroundLoadsItsImportsAndItsTopLevelAwaitIsPartOfTheLoad() throws {
        let run = try run("runtime-module", watchdog: 300, [(Self.started, Self.epoch, 5)])
        #expect(run.logs == ["loaded 42"])
        #expect(run.end(0) == done([.listen([.alarm, .message]), .setTimer(.script(1), at: Int64(Self.epoch + 10))]))
    }

    @Test func aScriptThatNeverYieldsEndsTheRuntimeWithTheWatchdogsStatus() throws {
        let timer = #"{"type":"timerFired","timer":{"script":1}}"#
        let run = try run("runtime-module", watchdog: 300, [(Self.started, Self.epoch, 5), (timer, Self.epoch + 10, 15), (timer, Self.epoch + 20, 25)])
        #expect(run.answers.count == 2 && run.end(1).map { if case .done = $0 { true } else { false } } != true, "the timer's input never ends")
        #expect(run.ended == "a script did not yield within 300 ms, and its runtime ended it", "\(run.ended ?? "it went on")")
    }
}
