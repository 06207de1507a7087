import ProcessKit
import SiteSettings
import Testing

struct ExtensionWireTests {
    static let now: EpochMillis = 1_783_940_000_000

    /// One event of every kind, with random payloads.
    static func everyEvent(_ s: inout WireSamples) -> [ExtensionWire.Event] {
        [.started(appearance: s.appearance(), utcOffsetMinutes: s.int(-18 * 60...18 * 60),
                  tabs: Dictionary((0..<s.int(0...3)).map { _ in (s.tab(), s.url()) }) { a, _ in a }, appMessages: s.bool()),
         .storageCompleted(token: s.int(Int.min...Int.max)),
         .tabRequestedDecision(s.tab(), url: s.url(), nativeDark: s.bool()),
         .tabNativeDarkChanged(s.tab(), nativeDark: s.bool()),
         .tabActivated(s.tab()),
         .tabClosed(s.tab()),
         .safariCameToForeground,
         .appMessageArrived(),
         .appMessageArrived(message: .object(["name": .string(s.text()), "userInfo": .object([s.text(): .bool(s.bool())])])),
         .appearanceChanged(s.appearance()),
         .popupOpened(s.tab()),
         .popupClosed,
         .popupChoseScope(scope: s.typedScope()),
         .popupEdited(set: s.siteValues(), reset: s.fields(), message: s.int(Int.min...Int.max), at: s.maybe { $0.time() }),
         .popupForgotSite(message: s.int(Int.min...Int.max), at: s.maybe { $0.time() }),
         .popupPaused(until: s.time()),
         .nativeReplyArrived(request: s.int(Int.min...Int.max), NativeOutcome(reading: s.json())),
         .nativeReplyArrived(request: s.int(Int.min...Int.max), .replied(.notModified(DocumentVersion(documentId: "doc-1", revision: s.int64(0...99))))),
         .nativeReplyArrived(request: s.int(Int.min...Int.max), .rejected(s.bool() ? .handlerEnded : .tooManyRequests)),
         .timerFired(.nativeTimeout(s.int(Int.min...Int.max))),
         .timerFired(.script(s.int(Int.min...Int.max))),
         .alarmFired(name: ""),
         .alarmFired(name: s.bool() ? "refresh" : "ünïcode ✓")]
    }

    /// One output of every kind that travels, with random payloads.
    static func everyOutput(_ s: inout WireSamples) -> [ExtensionWire.Output] {
        [.storagePending(token: s.int(Int.min...Int.max)),
         .sendNative(request: s.int(Int.min...Int.max), s.request()),
         .setTimer(.nativeTimeout(s.int(Int.min...Int.max)), at: s.int64(Int64.min...Int64.max)),
         .cancelTimer(.nativeTimeout(s.int(Int.min...Int.max))),
         .setTimer(.script(s.int(Int.min...Int.max)), at: s.int64(Int64.min...Int64.max)),
         .cancelTimer(.script(s.int(Int.min...Int.max))),
         .setAlarm(at: s.int64(Int64.min...Int64.max)),
         .setAlarm(at: s.int64(Int64.min...Int64.max), name: "refresh", period: s.int64(1...Int64.max)),
         .clearAlarm(name: s.bool() ? "" : "refresh"),
         .connectNative,
         .listen(BackgroundListener.builtIn.filter { _ in s.bool() }),
         .sendDecision(s.tab(), s.decision()),
         .showPopup(s.popupView()),
         .popupAnswer(message: s.int(Int.min...Int.max), saved: s.maybe { $0.bool() }, scope: s.maybe { $0.scopeKey() })]
    }

    @Test func everyEventReadsBackAsItWasSent() throws {
        for seed in UInt64(0)..<300 {
            var samples = WireSamples(seed: seed)
            for event in Self.everyEvent(&samples) {
                let sent = try throughBytes(ExtensionWire.encode(event))
                #expect(try ExtensionWire.decode(sent) == event, "seed \(seed): \(sent)")
            }
        }
    }

    @Test func everyTravellingOutputReadsBackAsItWasSent() throws {
        for seed in UInt64(0)..<300 {
            var samples = WireSamples(seed: seed)
            for output in Self.everyOutput(&samples) {
                let sent = try throughBytes(ExtensionWire.json(output))
                #expect(try ExtensionWire.directive(sent) == output, "seed \(seed): \(sent)")
            }
        }
    }

    @Test func extensionStorageNeverTravels() {
        #expect(ExtensionWire.output(.loadStorage) == nil)
        #expect(ExtensionWire.output(.saveLocalStorage(LocalStorage(), token: 1)) == nil)
        #expect(ExtensionWire.output(.saveSessionStorage(SessionStorage())) == nil)
    }

    @Test func eventsAreWrittenAsTheHarnessHasAlwaysSentThem() throws {
        let t1 = TabID("t1")
        let examples: [(ExtensionWire.Event, String)] = [
            (.started(appearance: .dark, tabs: [t1: "https://docs.example.com/guide"]),
             #"{"type": "started", "appearance": "dark", "tabs": {"t1": "https://docs.example.com/guide"}}"#),
            (.started(appearance: .light, utcOffsetMinutes: 60, tabs: [:]),
             #"{"type": "started", "appearance": "light", "utcOffsetMinutes": 60, "tabs": {}}"#),
            (.started(appearance: .light, tabs: [:], appMessages: true),
             #"{"type": "started", "appearance": "light", "tabs": {}, "appMessages": true}"#),
            (.storageCompleted(token: 3), #"{"type": "storageCompleted", "token": 3}"#),
            (.tabRequestedDecision(t1, url: "https://a.example/", nativeDark: false),
             #"{"type": "tabRequestedDecision", "tab": "t1", "url": "https://a.example/", "nativeDark": false}"#),
            (.tabNativeDarkChanged(t1, nativeDark: true), #"{"type": "tabNativeDarkChanged", "tab": "t1", "nativeDark": true}"#),
            (.tabActivated(t1), #"{"type": "tabActivated", "tab": "t1"}"#),
            (.tabClosed(t1), #"{"type": "tabClosed", "tab": "t1"}"#),
            (.safariCameToForeground, #"{"type": "safariCameToForeground"}"#),
            (.appMessageArrived(), #"{"type": "appMessageArrived"}"#),
            (.appMessageArrived(message: .object(["name": .string("themeChanged"), "userInfo": .object(["theme": .string("sepia")])])),
             #"{"type": "appMessageArrived", "message": {"name": "themeChanged", "userInfo": {"theme": "sepia"}}}"#),
            (.appearanceChanged(.dark), #"{"type": "appearanceChanged", "appearance": "dark"}"#),
            (.popupOpened(t1), #"{"type": "popupOpened", "tab": "t1"}"#),
            (.popupClosed, #"{"type": "popupClosed"}"#),
            (.popupChoseScope(scope: "Docs.Example.COM"), #"{"type": "popupChoseScope", "scope": "Docs.Example.COM"}"#),
            (.popupEdited(set: SiteValues(mode: .off), reset: [], message: 4, at: Self.now),
             #"{"type": "popupEdited", "set": {"mode": "off"}, "reset": [], "message": 4, "at": 1783940000000}"#),
            (.popupEdited(set: SiteValues(), reset: [.theme, .mode], message: 5, at: Self.now),
             #"{"type": "popupEdited", "set": {}, "reset": ["theme", "mode"], "message": 5, "at": 1783940000000}"#),
            (.popupForgotSite(message: 6, at: Self.now), #"{"type": "popupForgotSite", "message": 6, "at": 1783940000000}"#),
            (.popupPaused(until: Self.now + 60_000), #"{"type": "popupPaused", "until": 1783940060000}"#),
            (.nativeReplyArrived(request: 2, .unreadable(.object(["type": .string("notModified")]))),
             #"{"type": "nativeReplyArrived", "request": 2, "reply": {"type": "notModified"}}"#),
            (.nativeReplyArrived(request: 2, .replied(.notModified(DocumentVersion(documentId: "doc-1", revision: 4)))),
             #"{"type": "nativeReplyArrived", "request": 2, "reply": {"type": "notModified", "documentId": "doc-1", "revision": 4}}"#),
            (.nativeReplyArrived(request: 3, .rejected(.handlerEnded)), #"{"type": "nativeReplyArrived", "request": 3, "rejected": "handlerEnded"}"#),
            (.timerFired(.nativeTimeout(2)), #"{"type": "timerFired", "timer": {"nativeTimeout": 2}}"#),
            (.alarmFired(name: ""), #"{"type": "alarmFired"}"#),
            (.alarmFired(name: "refresh"), #"{"type": "alarmFired", "name": "refresh"}"#),
        ]
        for (event, expected) in examples {
            #expect(ExtensionWire.encode(event) == (try json(expected)), "\(event)")
        }
    }

    @Test func outputsAreWrittenAsBefore() throws {
        let examples: [(ExtensionWire.Output, String)] = [
            (.storagePending(token: 4), #"{"type": "storagePending", "token": 4}"#),
            (.sendNative(request: 1, .getSnapshot(known: DocumentVersion(documentId: "doc-1", revision: 42))),
             #"{"type": "sendNative", "request": 1, "message": {"type": "getSnapshot", "known": {"documentId": "doc-1", "revision": 42}}}"#),
            (.setTimer(.nativeTimeout(1), at: Self.now), #"{"type": "setTimer", "timer": {"nativeTimeout": 1}, "at": 1783940000000}"#),
            (.cancelTimer(.nativeTimeout(1)), #"{"type": "cancelTimer", "timer": {"nativeTimeout": 1}}"#),
            (.setAlarm(at: Self.now), #"{"type": "setAlarm", "at": 1783940000000}"#),
            (.setAlarm(at: Self.now, name: "refresh", period: 60_000), #"{"type": "setAlarm", "at": 1783940000000, "name": "refresh", "period": 60000}"#),
            (.clearAlarm(name: "refresh"), #"{"type": "clearAlarm", "name": "refresh"}"#),
            (.connectNative, #"{"type": "connectNative"}"#),
            (.listen([.message, .alarm]), #"{"type": "listen", "events": ["message", "alarm"]}"#),
            (.popupAnswer(message: 3, saved: nil, scope: nil), #"{"type": "popupAnswer", "message": 3, "saved": null, "scope": null}"#),
            (.popupAnswer(message: 3, saved: true, scope: try ScopeKey.parse("a.example")),
             #"{"type": "popupAnswer", "message": 3, "saved": true, "scope": "a.example"}"#),
        ]
        for (output, expected) in examples {
            #expect(ExtensionWire.json(output) == (try json(expected)), "\(output)")
        }
    }

    @Test func theMachineGetsCanonicalKeysSortedResetsAndItsTimers() throws {
        let now = Self.now
        #expect(try ExtensionWire.input(for: .popupChoseScope(scope: "Docs.Example.COM."), now: now)
            == .machine(.popupChoseScope(try ScopeKey.parse("docs.example.com"), now: now)))
        #expect(try ExtensionWire.input(for: .popupEdited(set: SiteValues(), reset: [.theme, .mode], message: 2, at: nil), now: now)
            == .machine(.popupEdited(set: SiteValues(), reset: [.mode, .theme], message: 2, at: nil, now: now)))
        #expect(try ExtensionWire.input(for: .timerFired(.nativeTimeout(7)), now: now) == .machine(.timerFired(.nativeTimeout(7), now: now)))
        #expect(try ExtensionWire.input(for: .storageCompleted(token: 7), now: now) == .storageCompleted(token: 7))
        #expect(try ExtensionWire.input(for: .safariCameToForeground, now: now) == .machine(.safariCameToForeground(now: now)))
        // A reply is read once, where it enters the process: one that does not read as a
        // reply reaches the machine as unreadable, as it came.
        let garbage = JSONValue.object(["type": .string("snapshot"), "document": .string("settings")])
        #expect(try ExtensionWire.decode(ExtensionWire.encode(.nativeReplyArrived(request: 1, .unreadable(garbage))))
            == .nativeReplyArrived(request: 1, .unreadable(garbage)))
        let reply = NativeReply.applied(DocumentVersion(documentId: "doc-1", revision: 5), changed: true)
        #expect(try ExtensionWire.decode(ExtensionWire.encode(.nativeReplyArrived(request: 1, .unreadable(reply.json))))
            == .nativeReplyArrived(request: 1, .replied(reply)))
    }

    @Test func inputsThatCannotBeReadNameTheMemberAtFault() throws {
        func input(_ text: String) throws -> String? {
            let value = try json(text)
            return failure { () throws(NativeMessageError) in try ExtensionWire.input(for: try ExtensionWire.decode(value), now: 0) }
        }
        #expect(try input(#"{"type": "popupChoseScope", "scope": "has?query"}"#) == "scope: '?' not allowed: a page key has no query or fragment")
        #expect(try input(#"{"type": "popupChoseScope"}"#) == "scope: expected a string")
        #expect(try input(#"{"type": "started", "appearance": "dim"}"#) == "appearance: expected light or dark")
        #expect(try input(#"{"type": "started", "appearance": "dark", "utcOffsetMinutes": 1200}"#)
            == "utcOffsetMinutes: expected minutes within ±18 hours")
        #expect(try input(#"{"type": "started", "appearance": "dark", "alarms": [1]}"#) == "alarms: expected an object of alarms by name")
        #expect(try input(#"{"type": "started", "appearance": "dark", "alarms": {"refresh": {"period": 60000}}}"#)
            == #"alarms.refresh: expected {"at": milliseconds, "period": milliseconds}"#)
        #expect(try input(#"{"type": "started", "appearance": "dark", "alarms": {"refresh": {"at": 1, "period": 0}}}"#)
            == "alarms.refresh.period: expected milliseconds above zero")
        #expect(try input(#"{"type": "started", "appearance": "dark", "reason": "reinstall"}"#) == "reason: expected startup, install or update")
        #expect(try input(#"{"type": "popupEdited", "set": {"mode": "dim"}}"#) == "set.mode: unknown mode 'dim'")
        #expect(try input(#"{"type": "popupEdited", "reset": ["mode", "colour"]}"#) == "reset[1]: expected one of mode, theme, nativeDarkPolicy")
        #expect(try input(#"{"type": "popupPaused", "until": -1}"#) == "until: time -1 is out of range")
        #expect(try input(#"{"type": "nativeReplyArrived", "request": 1, "reply": 1, "rejected": "canceled"}"#)
            == "document: expected either 'reply' or 'rejected' (a string), or neither")
        #expect(try input(#"{"type": "nativeReplyArrived", "request": 1, "rejected": "bored"}"#) == "rejected: expected handlerEnded or tooManyRequests or canceled")
        #expect(try input(#"{"type": "timerFired", "timer": {"alarm": 1}}"#) == "timer.alarm: unknown member")
        #expect(try input(#"{"type": "wake"}"#) == "type: unknown input 'wake'")
    }

    @Test func aMalformedOutputIsRefusedNamingTheMemberAtFault() throws {
        func directive(_ text: String) throws -> String? {
            let value = try json(text)
            return failure { try ExtensionWire.directive(value) }
        }
        #expect(try directive(#"{"type": "storagePending"}"#) == "token: expected an integer")
        #expect(try directive(#"{"type": "setTimer", "timer": {"alarm": 1}, "at": 5}"#) == "timer.alarm: unknown member")
        #expect(try directive(#"{"type": "setTimer", "timer": {"nativeTimeout": 1, "script": 1}, "at": 5}"#)
            == "timer: expected one of nativeTimeout and script, not both")
        #expect(try directive(#"{"type": "cancelTimer", "timer": {}}"#) == "timer.nativeTimeout: expected an integer")
        // A native message is the extension's own: what is not one of the design's forms is
        // carried as it was sent, never refused.
        let ownPatch = #"{"type": "patch", "scope": "a.example", "set": {}, "reset": [], "at": 1}"#
        #expect(try ExtensionWire.directive(json(#"{"type": "sendNative", "request": 1, "message": \#(ownPatch)}"#))
            == .sendNative(request: 1, .other(try json(ownPatch))))
        #expect(try directive(#"{"type": "sendNative", "request": "1", "message": null}"#) == "request: expected an integer")
        #expect(try directive(#"{"type": "popupAnswer", "message": 1, "saved": "yes", "scope": null}"#) == "saved: expected true or false")
        #expect(try directive(#"{"type": "popupAnswer", "message": 1, "saved": null}"#) == "scope: missing")
        #expect(try directive("""
            {"type": "sendDecision", "tab": "t1", "decision": {"enabled": true, "theme": "dark", "reason": "modeOn", "scope": null,
             "mode": "on", "nativeDarkPolicy": "respect", "schedule": "20:00 to 06:00",
             "source": {"mode": "site", "theme": "default", "nativeDarkPolicy": "default"}}}
            """) == "decision.schedule: expected a schedule written HH:MM-HH:MM")
        #expect(try directive(#"{"type": "showPopup", "view": {"tab": "t1", "url": "", "unsupported": true, "scopes": [".co.uk"], "selectedScope": null, "pausedUntil": null}}"#)
            == "view.scopes[0]: 'co.uk' is a public suffix, not a registrable domain")
    }

    /// A script or a style sheet for a tab's page travels with its one source, and reads back
    /// as sent; a call with two sources, none, or `args` without `func` is refused by name.
    @Test func anInjectionTravelsWithItsOneSource() throws {
        let t1 = TabID("t1")
        for call: ExtensionWire.TabsCall in [.inject(.executeScript, t1, .function("(a) => a", arguments: [.integer(1), .string("b")])),
                                             .inject(.executeScript, t1, .function("() => 1", arguments: [])),
                                             .inject(.insertCSS, t1, .files(["a.css", "b.css"])),
                                             .inject(.removeCSS, t1, .code("p { color: red }"))] {
            let output = ExtensionWire.Output.tabsCall(request: 3, call)
            #expect(try ExtensionWire.directive(throughBytes(ExtensionWire.json(output))) == output)
        }
        #expect(String(decoding: JSONWriter.compact(ExtensionWire.json(.tabsCall(request: 3, .inject(.insertCSS, t1, .code("p {}"))))), as: UTF8.self)
            == #"{"code":"p {}","method":"insertCSS","request":3,"tab":"t1","type":"tabsCall"}"#)
        func directive(_ text: String) throws -> String? {
            let value = try json(text)
            return failure { try ExtensionWire.directive(value) }
        }
        #expect(try directive(#"{"type": "tabsCall", "request": 1, "method": "executeScript", "tab": "t1", "code": "1", "files": []}"#)
            == "document: expected exactly one of func, files and code")
        #expect(try directive(#"{"type": "tabsCall", "request": 1, "method": "insertCSS", "tab": "t1"}"#) == "document: expected exactly one of func, files and code")
        #expect(try directive(#"{"type": "tabsCall", "request": 1, "method": "executeScript", "tab": "t1", "files": ["a.js"], "args": []}"#)
            == "args: expected only with func")
        #expect(try directive(#"{"type": "tabsCall", "request": 1, "method": "executeScript", "tab": "t1", "files": [1]}"#) == "files[0]: expected a string")
        #expect(try directive(#"{"type": "tabsCall", "request": 1, "method": "executeScript", "tab": "t1", "func": "f", "args": {}}"#) == "args: expected an array")
        #expect(try directive(#"{"type": "tabsCall", "request": 1, "method": "discard", "tab": "t1"}"#)
            == "method: expected create, update, reload, remove, executeScript, insertCSS, removeCSS or requestPermissions, not 'discard'")
        // Safari's answer carries each run's result.
        let results = JSONValue.array([.object(["frameId": .integer(0), "result": .integer(5)])])
        let answered = ExtensionWire.Event.tabsAnswered(request: 3, tab: nil, url: nil, error: nil, results: results)
        #expect(try ExtensionWire.decode(throughBytes(ExtensionWire.encode(answered))) == answered)
    }

    /// A permission request names what the background asks for, and Safari answers whether the
    /// user granted it; a request or an answer of another shape is refused, naming its member.
    @Test func aPermissionRequestTravelsWithWhatItAsksAndComesBackGrantedOrNot() throws {
        let output = ExtensionWire.Output.tabsCall(request: 4, .requestPermissions(permissions: ["tabs"], origins: ["https://*.example.org/*"]))
        #expect(try ExtensionWire.directive(throughBytes(ExtensionWire.json(output))) == output)
        #expect(String(decoding: JSONWriter.compact(ExtensionWire.json(output)), as: UTF8.self)
            == #"{"method":"requestPermissions","origins":["https://*.example.org/*"],"permissions":["tabs"],"request":4,"type":"tabsCall"}"#)
        for granted in [true, false] {
            let answered = ExtensionWire.Event.tabsAnswered(request: 4, tab: nil, url: nil, error: nil, granted: granted)
            #expect(try ExtensionWire.decode(throughBytes(ExtensionWire.encode(answered))) == answered)
        }
        #expect(try failure { try ExtensionWire.directive(json(#"{"type": "tabsCall", "request": 1, "method": "requestPermissions", "permissions": ["tabs"]}"#)) }
            == "origins: missing")
        #expect(try failure { try ExtensionWire.directive(json(#"{"type": "tabsCall", "request": 1, "method": "requestPermissions", "permissions": "tabs", "origins": []}"#)) }
            == "permissions: expected an array")
        #expect(try failure { try ExtensionWire.decode(json(#"{"type": "tabsAnswered", "request": 1, "granted": "yes"}"#)) } == "granted: expected a boolean")
        // An extension page's message in its user's gesture says so.
        let asked = ExtensionWire.Event.pageMessage(id: 3, from: .popup, message: .string("allow"), userGesture: true)
        #expect(try ExtensionWire.decode(throughBytes(ExtensionWire.encode(asked))) == asked)
        #expect(try failure { try ExtensionWire.decode(json(#"{"type": "pageMessage", "id": 1, "popup": true, "message": 1, "userGesture": 1}"#)) }
            == "userGesture: expected a boolean")
    }
}
