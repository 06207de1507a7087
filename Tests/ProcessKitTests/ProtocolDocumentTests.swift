import ProcessKit
import SiteSettings
import Testing

/// Keeps `Sources/ProcessKit/PROTOCOL.md` true: every example in a labelled block reads with its
/// label's codec and is written back, by the codec and `JSONWriter.compact`, as exactly the same
/// text; and every input and output of each role (and every yield point, rejection and error
/// code) has an example, so a new one cannot go undocumented.
struct ProtocolDocumentTests {
    /// A fenced block's label (`json app-input`) and the codec that reads its lines.
    enum Label: String, CaseIterable, CustomTestStringConvertible {
        case appInput = "app-input", appOutput = "app-output"
        case backgroundInput = "background-input", backgroundOutput = "background-output"
        case handlerInput = "handler-input", handlerOutput = "handler-output"
        case toChild = "to-child", fromChild = "from-child", hello
        case nativeRequest = "native-request", nativeReply = "native-reply"
        case document, storageLocal = "storage-local", storageSession = "storage-session"

        var testDescription: String { "json \(rawValue)" }

        /// The value read by this label's codec and written back as JSON; throws when the
        /// codec does not read it.
        func rewrite(_ json: JSONValue, bytes: [UInt8]) throws -> JSONValue {
            switch self {
            case .appInput:
                return AppWire.encode(try AppWire.decode(json))
            case .appOutput:
                return try travelling(AppWire.json(try AppWire.directive(json)))
            case .backgroundInput:
                return ExtensionWire.encode(try ExtensionWire.decode(json))
            case .backgroundOutput:
                return try travelling(ExtensionWire.json(try ExtensionWire.directive(json)))
            case .handlerInput:
                return NativeHandlerWire.encode(try NativeHandlerWire.decode(json))
            case .handlerOutput:
                return try travelling(NativeHandlerWire.json(try NativeHandlerWire.directive(json)))
            case .toChild:
                // An input frame's input is read by the codec of the role it is for.
                for role in WireProtocol.Role.allCases {
                    if let frame = try? ToChild.decode(bytes, role: role) { return frame.json }
                }
                return try ToChild.decode(bytes, role: .app).json
            case .fromChild, .hello:
                // A `done` frame's directives are read by the codec of the role that wrote them.
                for role in WireProtocol.Role.allCases {
                    if let frame = try? FromChild.decode(bytes, role: role) { return frame.json }
                }
                return try FromChild.decode(bytes, role: .app).json
            case .nativeRequest:
                return NativeRequest.decode(json).json
            case .nativeReply:
                return try NativeReply.decode(json).json
            case .document:
                return DocumentCodec.json(try DocumentCodec.decode(bytes).document)
            case .storageLocal:
                guard let storage = LocalStorage.decode(json) else { throw Unreadable("not a storage.local object") }
                return storage.json
            case .storageSession:
                guard let session = SessionStorage.decode(json) else { throw Unreadable("not a storage.session object") }
                return session.json
            }
        }

        private func travelling(_ json: JSONValue?) throws -> JSONValue {
            guard let json else { throw Unreadable("a directive that stays inside the process") }
            return json
        }
    }

    /// Labels whose lines no codec reads yet: each line must still be one JSON value written as
    /// `JSONWriter.compact` writes it.
    static let jsonOnly: Set<String> = ["page", "pages"]

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// One line of a labelled block.
    struct Example {
        let label: String
        /// 1-based, in the document.
        let line: Int
        let text: String

        var json: JSONValue? { try? JSONParser.parse(text) }
        /// The root object's `type` (or, for frames, `kind`).
        func name(_ member: String = "type") -> String? {
            if case .object(let members)? = json, case .string(let name)? = members[member] { return name }
            return nil
        }
    }

    /// The document read into its labelled lines, and what is wrong with its blocks.
    struct Document {
        var examples: [Example] = []
        var problems: [String] = []

        func examples(_ label: Label) -> [Example] { examples.filter { $0.label == label.rawValue } }
    }

    static let path: String = {
        // Tests/ProcessKitTests/ProtocolDocumentTests.swift, up to the package's root.
        var folder = #filePath
        for _ in 0..<3 { folder = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)]) }
        return folder + "/Sources/ProcessKit/PROTOCOL.md"
    }()

    static let document: Document = {
        var document = Document()
        let bytes: [UInt8]?
        do { bytes = try FileIO.read(path, name: "PROTOCOL.md") } catch {
            document.problems.append("\(path): \(error)")
            return document
        }
        guard let bytes else {
            document.problems.append("\(path): no such file")
            return document
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var open: (info: String, line: Int)?
        for (index, line) in lines.enumerated() {
            let number = index + 1
            guard line.hasPrefix("```") else {
                if let (info, _) = open, info.hasPrefix("json ") {
                    document.examples.append(Example(label: String(info.dropFirst(5)), line: number, text: String(line)))
                }
                continue
            }
            if open != nil {
                open = nil
                continue
            }
            let info = String(line.dropFirst(3))
            open = (info, number)
            if info.hasPrefix("json ") {
                let label = String(info.dropFirst(5))
                if Label(rawValue: label) == nil && !jsonOnly.contains(label) {
                    document.problems.append("PROTOCOL.md line \(number): unknown label 'json \(label)'")
                }
            }
        }
        if let (info, line) = open { document.problems.append("PROTOCOL.md line \(line): the block '\(info)' is never closed") }
        return document
    }()

    static func text(_ json: JSONValue) -> String { String(decoding: JSONWriter.compact(json), as: UTF8.self) }

    @Test func theDocumentIsFoundAndItsBlocksAreClosedAndLabelledRight() {
        for problem in Self.document.problems { Issue.record("\(problem)") }
        #expect(!Self.document.examples.isEmpty, "no labelled example in \(Self.path)")
    }

    /// Each line reads with its codec and is written back as the same text.
    @Test(arguments: Label.allCases)
    func everyExampleIsWrittenAsItsCodecWritesIt(_ label: Label) {
        let examples = Self.document.examples(label)
        #expect(!examples.isEmpty, "no example labelled json \(label.rawValue)")
        for example in examples {
            let place = "PROTOCOL.md line \(example.line) (json \(label.rawValue))"
            let bytes = Array(example.text.utf8)
            let json: JSONValue
            do { json = try JSONParser.parse(bytes) } catch {
                Issue.record("\(place): not JSON: \(error)")
                continue
            }
            let written: JSONValue
            do { written = try label.rewrite(json, bytes: bytes) } catch {
                Issue.record("\(place): does not decode: \(error)")
                continue
            }
            let text = Self.text(written)
            #expect(text == example.text, "\(place): the codec writes it as\n\(text)")
        }
    }

    /// Lines no codec reads yet are at least JSON as `JSONWriter.compact` writes it.
    @Test func helloAndPageExamplesAreCompactJSON() {
        let examples = Self.document.examples.filter { Self.jsonOnly.contains($0.label) }
        #expect(examples.contains { $0.label == "page" })
        for example in examples {
            guard let json = example.json else {
                Issue.record("PROTOCOL.md line \(example.line) (json \(example.label)): not JSON")
                continue
            }
            #expect(Self.text(json) == example.text, "PROTOCOL.md line \(example.line) (json \(example.label)): written as\n\(Self.text(json))")
        }
        let roles = Set(Self.document.examples.filter { $0.label == "hello" }.compactMap { $0.name("role") })
        #expect(roles == ["app", "background", "handler", "page"])
    }

    /// The input inside an `input` frame reads as some role's input, and each directive of a
    /// `done` frame as some role's output.
    @Test func framesCarryWhatTheRolesRead() {
        for example in Self.document.examples(.toChild) {
            let read = WireProtocol.Role.allCases.contains { (try? ToChild.decode(Array(example.text.utf8), role: $0)) != nil }
            #expect(read, "PROTOCOL.md line \(example.line): no role reads the frame \(example.text)")
        }
        for example in Self.document.examples(.fromChild) {
            let read = WireProtocol.Role.allCases.contains { (try? FromChild.decode(Array(example.text.utf8), role: $0)) != nil }
            #expect(read, "PROTOCOL.md line \(example.line): no role reads the frame \(example.text)")
        }
    }

    // MARK: - Coverage

    /// Every input and output name of each role's codec, and of the frames and native messages,
    /// has an example under its label.
    @Test(arguments: Coverage.all)
    func everyNameHasAnExample(_ coverage: Coverage) {
        // The hello, a frame from the child, has its own section and label.
        let labels = coverage.label == .fromChild ? [Label.fromChild, .hello] : [coverage.label]
        let documented = Set(labels.flatMap { Self.document.examples($0) }.compactMap { $0.name(coverage.member) })
        for name in coverage.names where !documented.contains(name) {
            Issue.record("json \(coverage.label.rawValue): no example of '\(name)'")
        }
    }

    @Test func everyYieldPointRejectionAndErrorCodeHasAnExample() {
        let yields = Set(Self.document.examples(.fromChild).compactMap { $0.name("point") })
        for point in YieldPoint.allCases where !yields.contains(point.rawValue) {
            Issue.record("json from-child: no yield at '\(point.rawValue)'")
        }
        let rejections = Set(Self.document.examples(.backgroundInput).compactMap { $0.name("rejected") })
        for rejection in NativeRejection.allCases where !rejections.contains(rejection.rawValue) {
            Issue.record("json background-input: no nativeReplyArrived rejected with '\(rejection.rawValue)'")
        }
        let codes = Set(Self.document.examples(.nativeReply).compactMap { $0.name("code") })
        for code in NativeErrorCode.allCases where !codes.contains(code.rawValue) {
            Issue.record("json native-reply: no error with code '\(code.rawValue)'")
        }
    }

    /// Each sample is of the kind it is listed as: a new case in a codec fails to compile in
    /// the `kind(of:)` switches below until it is listed, and then needs an example.
    @Test func theSamplesHaveOneValueOfEveryKind() {
        for kind in AppInput.allCases { #expect(AppInput(of: kind.sample) == kind) }
        for kind in AppOutput.allCases { #expect(AppOutput(of: kind.sample) == kind) }
        for kind in BackgroundInput.allCases { #expect(BackgroundInput(of: kind.sample) == kind) }
        for kind in BackgroundOutput.allCases { #expect(BackgroundOutput(of: kind.sample) == kind) }
        for kind in HandlerOutput.allCases { #expect(HandlerOutput(of: kind.sample) == kind) }
        for kind in Request.allCases { #expect(Request(of: kind.sample) == kind) }
        for kind in Reply.allCases { #expect(Reply(of: kind.sample) == kind) }
        for kind in ToChildKind.allCases { #expect(ToChildKind(of: kind.sample) == kind) }
        for kind in FromChildKind.allCases { #expect(FromChildKind(of: kind.sample) == kind) }
        #expect(HandlerInput(of: HandlerInput.requestArrived.sample) == .requestArrived)
    }

    /// The names one codec writes, found by writing one value of every kind, and the label and
    /// member its examples carry them in.
    struct Coverage: CustomTestStringConvertible, Sendable {
        let label: Label
        let member: String
        let names: [String]

        var testDescription: String { "json \(label.rawValue)" }

        static func named(_ json: JSONValue?, _ member: String = "type") -> String {
            if case .object(let members)? = json, case .string(let name)? = members[member] { return name }
            return "(\(json.map(ProtocolDocumentTests.text) ?? "nothing"))"
        }

        static let all: [Coverage] = [
            Coverage(label: .appInput, member: "type", names: AppInput.allCases.map { named(AppWire.encode($0.sample)) }),
            Coverage(label: .appOutput, member: "type", names: AppOutput.allCases.map { named(AppWire.json($0.sample)) }),
            Coverage(label: .backgroundInput, member: "type", names: BackgroundInput.allCases.map { named(ExtensionWire.encode($0.sample)) }),
            Coverage(label: .backgroundOutput, member: "type", names: BackgroundOutput.allCases.map { named(ExtensionWire.json($0.sample)) }),
            Coverage(label: .handlerInput, member: "type", names: HandlerInput.allCases.map { named(NativeHandlerWire.encode($0.sample)) }),
            Coverage(label: .handlerOutput, member: "type", names: HandlerOutput.allCases.map { named(NativeHandlerWire.json($0.sample)) }),
            Coverage(label: .nativeRequest, member: "type", names: Request.allCases.map { named($0.sample.json) }),
            Coverage(label: .nativeReply, member: "type", names: Reply.allCases.map { named($0.sample.json) }),
            Coverage(label: .toChild, member: "kind", names: ToChildKind.allCases.map { named($0.sample.json, "kind") }),
            Coverage(label: .fromChild, member: "kind", names: FromChildKind.allCases.map { named($0.sample.json, "kind") }),
        ]
    }
}

// MARK: - One value of every kind

private let version = DocumentVersion(documentId: "doc-1", revision: 1)
private let decision = Resolver(document: SettingsDocument()).decide(url: "https://a.example/", context: DecisionContext(now: 0))

/// The app's inputs.
private enum AppInput: CaseIterable {
    case launched, cameToForeground, changeNotificationArrived, userEdited

    init(of event: AppWire.Event) {
        switch event {
        case .launched: self = .launched
        case .cameToForeground: self = .cameToForeground
        case .changeNotificationArrived: self = .changeNotificationArrived
        case .userEdited: self = .userEdited
        }
    }

    var sample: AppWire.Event {
        switch self {
        case .launched: .launched
        case .cameToForeground: .cameToForeground
        case .changeNotificationArrived: .changeNotificationArrived
        case .userEdited: .userEdited(.deleteSite(scope: "a.example"))
        }
    }
}

/// The app's directives that leave the process.
private enum AppOutput: CaseIterable {
    case showView, editSaved, editRefused, messageExtension

    init(of output: AppWire.Output) {
        switch output {
        case .showView: self = .showView
        case .editSaved: self = .editSaved
        case .editRefused: self = .editRefused
        case .messageExtension: self = .messageExtension
        }
    }

    var sample: AppWire.Output {
        switch self {
        case .showView: .showView(AppView(SettingsDocument()))
        case .editSaved: .editSaved(revision: 1, changed: true)
        case .editRefused: .editRefused(.storageFailure, "")
        case .messageExtension: .messageExtension
        }
    }
}

/// The background's inputs.
private enum BackgroundInput: CaseIterable {
    case started, storageCompleted, tabRequestedDecision, tabNativeDarkChanged, tabActivated, tabClosed
    case safariCameToForeground, safariWentToBackground, appMessageArrived, appearanceChanged
    case popupOpened, popupClosed, popupChoseScope, popupEdited, popupForgotSite, popupPaused
    case nativeReplyArrived, timerFired, alarmFired, alarmsChanged, pageMessage, pageAnswered, portOpened, portMessage, portClosed, storageChanged
    case tabCreated, tabUpdated, tabsAnswered, menuClicked, commandPressed, actionClicked, navigated, permissionsChanged, menusChanged

    init(of event: ExtensionWire.Event) {
        switch event {
        case .started: self = .started
        case .storageCompleted: self = .storageCompleted
        case .tabRequestedDecision: self = .tabRequestedDecision
        case .tabNativeDarkChanged: self = .tabNativeDarkChanged
        case .tabActivated: self = .tabActivated
        case .tabClosed: self = .tabClosed
        case .safariCameToForeground: self = .safariCameToForeground
        case .safariWentToBackground: self = .safariWentToBackground
        case .appMessageArrived: self = .appMessageArrived
        case .appearanceChanged: self = .appearanceChanged
        case .popupOpened: self = .popupOpened
        case .popupClosed: self = .popupClosed
        case .popupChoseScope: self = .popupChoseScope
        case .popupEdited: self = .popupEdited
        case .popupForgotSite: self = .popupForgotSite
        case .popupPaused: self = .popupPaused
        case .nativeReplyArrived: self = .nativeReplyArrived
        case .timerFired: self = .timerFired
        case .alarmFired: self = .alarmFired
        case .alarmsChanged: self = .alarmsChanged
        case .pageMessage: self = .pageMessage
        case .pageAnswered: self = .pageAnswered
        case .portOpened: self = .portOpened
        case .portMessage: self = .portMessage
        case .portClosed: self = .portClosed
        case .storageChanged: self = .storageChanged
        case .tabCreated: self = .tabCreated
        case .tabUpdated: self = .tabUpdated
        case .tabsAnswered: self = .tabsAnswered
        case .menuClicked: self = .menuClicked
        case .commandPressed: self = .commandPressed
        case .actionClicked: self = .actionClicked
        case .navigated: self = .navigated
        case .permissionsChanged: self = .permissionsChanged
        case .menusChanged: self = .menusChanged
        }
    }

    var sample: ExtensionWire.Event {
        let t1 = TabID("t1")
        return switch self {
        case .started: .started(appearance: .light, tabs: [:])
        case .storageCompleted: .storageCompleted(token: 1)
        case .tabRequestedDecision: .tabRequestedDecision(t1, url: "https://a.example/", nativeDark: false)
        case .tabNativeDarkChanged: .tabNativeDarkChanged(t1, nativeDark: true)
        case .tabActivated: .tabActivated(t1)
        case .tabClosed: .tabClosed(t1)
        case .safariCameToForeground: .safariCameToForeground
        case .safariWentToBackground: .safariWentToBackground
        case .appMessageArrived: .appMessageArrived()
        case .appearanceChanged: .appearanceChanged(.dark)
        case .popupOpened: .popupOpened(t1)
        case .popupClosed: .popupClosed
        case .popupChoseScope: .popupChoseScope(scope: "a.example")
        case .popupEdited: .popupEdited(set: SiteValues(mode: .off), reset: [], message: 1, at: nil)
        case .popupForgotSite: .popupForgotSite(message: 1, at: nil)
        case .popupPaused: .popupPaused(until: 1)
        case .nativeReplyArrived: .nativeReplyArrived(request: 1, .rejected(.handlerEnded))
        case .timerFired: .timerFired(.nativeTimeout(1))
        case .alarmFired: .alarmFired(name: "refresh")
        case .alarmsChanged: .alarmsChanged(alarms: ["refresh": ExtensionWire.Alarm(at: 1_772_355_660_000, period: 60_000)])
        case .pageMessage: .pageMessage(id: 1, from: .tab(t1, url: "https://a.example/"), message: .object(["type": .string("getEnabled")]), active: t1)
        case .pageAnswered: .pageAnswered(id: 1, answer: .bool(true))
        case .portOpened: .portOpened(port: 1, name: "page", from: .popup)
        case .portMessage: .portMessage(port: 1, message: .string("ping"))
        case .portClosed: .portClosed(port: 1)
        case .storageChanged: .storageChanged(area: "sync", changes: .object(["color": .object(["newValue": .string("green")])]))
        case .tabCreated: .tabCreated(t1, url: "https://a.example/")
        case .tabUpdated: .tabUpdated(t1, url: "https://a.example/", status: .loading, urlChanged: true)
        case .tabsAnswered: .tabsAnswered(request: 1, tab: TabID("x1"), url: "https://a.example/", error: nil)
        case .menuClicked: .menuClicked(id: .string("save"), parentId: nil, tab: t1, url: "https://a.example/", checked: true, wasChecked: false)
        case .menusChanged: .menusChanged(items: [])
        case .commandPressed: .commandPressed(name: "toggle", tab: t1, url: "https://a.example/")
        case .actionClicked: .actionClicked(t1, url: "https://a.example/")
        case .navigated: .navigated(t1, url: "https://a.example/", stage: .committed)
        case .permissionsChanged: .permissionsChanged(added: true, permissions: [], origins: ["https://*.example.com/*"])
        }
    }
}

/// The background's outputs that leave the process.
private enum BackgroundOutput: CaseIterable {
    case storagePending, sendNative, setTimer, cancelTimer, setAlarm, clearAlarm, connectNative, listen
    case sendDecision, showPopup, popupAnswer, answerPage, messageTab, messagePopup, postOnPort, closePort, connectTab, storageChanged, tabsCall, actionSet
    case menusChanged, permissionsRemoved

    init(of output: ExtensionWire.Output) {
        switch output {
        case .storagePending: self = .storagePending
        case .sendNative: self = .sendNative
        case .setTimer: self = .setTimer
        case .cancelTimer: self = .cancelTimer
        case .setAlarm: self = .setAlarm
        case .clearAlarm: self = .clearAlarm
        case .connectNative: self = .connectNative
        case .listen: self = .listen
        case .sendDecision: self = .sendDecision
        case .showPopup: self = .showPopup
        case .popupAnswer: self = .popupAnswer
        case .answerPage: self = .answerPage
        case .messageTab: self = .messageTab
        case .messagePopup: self = .messagePopup
        case .postOnPort: self = .postOnPort
        case .closePort: self = .closePort
        case .connectTab: self = .connectTab
        case .storageChanged: self = .storageChanged
        case .tabsCall: self = .tabsCall
        case .actionSet: self = .actionSet
        case .menusChanged: self = .menusChanged
        case .permissionsRemoved: self = .permissionsRemoved
        }
    }

    var sample: ExtensionWire.Output {
        switch self {
        case .storagePending: .storagePending(token: 1)
        case .sendNative: .sendNative(request: 1, .getEnabled)
        case .setTimer: .setTimer(.nativeTimeout(1), at: 1)
        case .cancelTimer: .cancelTimer(.nativeTimeout(1))
        case .setAlarm: .setAlarm(at: 1, name: "refresh", period: 60_000)
        case .clearAlarm: .clearAlarm(name: "refresh")
        case .connectNative: .connectNative
        case .listen: .listen([])
        case .sendDecision: .sendDecision(TabID("t1"), decision)
        case .showPopup: .showPopup(PopupView(tab: TabID("t1"), url: "about:blank", unsupported: true, scopes: [],
                                                       selectedScope: nil, settings: nil, pausedUntil: nil))
        case .popupAnswer: .popupAnswer(message: 1, saved: nil, scope: nil)
        case .answerPage: .answerPage(id: 1, answer: .object(["enabled": .bool(true)]))
        case .messageTab: .messageTab(TabID("t1"), id: 1, message: .object(["type": .string("toggleEnabled")]))
        case .messagePopup: .messagePopup(id: 2, message: .object(["type": .string("refresh")]))
        case .postOnPort: .postOnPort(port: 1, message: .string("pong"))
        case .closePort: .closePort(port: 1)
        case .connectTab: .connectTab(port: -1, tab: TabID("t1"), name: "words")
        case .storageChanged: .storageChanged(area: "local", changes: .object(["gone": .object(["oldValue": .integer(1)])]))
        case .tabsCall: .tabsCall(request: 1, .update(TabID("x1"), url: "https://b.example/", active: nil))
        case .actionSet: .actionSet(tab: TabID("t1"), property: .badgeText, value: .string("3"))
        case .menusChanged: .menusChanged([ExtensionMenuItem(id: .string("save"), title: "Save", type: "checkbox")])
        case .permissionsRemoved: .permissionsRemoved(permissions: ["tabs"], origins: [])
        }
    }
}

/// The handler's inputs.
private enum HandlerInput: CaseIterable {
    case requestArrived

    init(of event: NativeHandlerWire.Event) {
        switch event {
        case .requestArrived: self = .requestArrived
        }
    }

    var sample: NativeHandlerWire.Event {
        switch self {
        case .requestArrived: .requestArrived(.object(["type": .string("getEnabled")]))
        }
    }
}

/// The handler's directives that leave the process.
private enum HandlerOutput: CaseIterable {
    case reply, answer, cancel, neverCompleted, postChangeNotification, dispatchMessage

    init(of output: NativeHandlerWire.Output) {
        switch output {
        case .reply: self = .reply
        case .answer: self = .answer
        case .cancel: self = .cancel
        case .neverCompleted: self = .neverCompleted
        case .postChangeNotification: self = .postChangeNotification
        case .dispatchMessage: self = .dispatchMessage
        }
    }

    var sample: NativeHandlerWire.Output {
        switch self {
        case .reply: .reply(.enabled(true))
        case .answer: .answer(.object(["theme": .string("sepia")]))
        case .cancel: .cancel
        case .neverCompleted: .neverCompleted
        case .postChangeNotification: .postChangeNotification
        case .dispatchMessage: .dispatchMessage(name: "defaultChanged", userInfo: .object(["readingDefault": .bool(false)]))
        }
    }
}

/// The native messages.
private enum Request: CaseIterable {
    case getSnapshot, patch, deleteSite, getEnabled, toggleEnabled, putDocument, other

    init(of request: NativeRequest) {
        switch request {
        case .getSnapshot: self = .getSnapshot
        case .patch: self = .patch
        case .deleteSite: self = .deleteSite
        case .getEnabled: self = .getEnabled
        case .toggleEnabled: self = .toggleEnabled
        case .putDocument: self = .putDocument
        case .other: self = .other
        }
    }

    var sample: NativeRequest {
        let key = try! ScopeKey.parse("a.example")
        let stamp = Stamp(at: 100_000_000_000, origin: .extension, edit: 1)
        return switch self {
        case .getSnapshot: .getSnapshot(known: nil)
        case .patch: .patch(scope: key, set: SiteValues(mode: .off), reset: [], stamp: stamp)
        case .deleteSite: .deleteSite(scope: key, stamp: stamp)
        case .getEnabled: .getEnabled
        case .toggleEnabled: .toggleEnabled
        case .putDocument: .putDocument(SettingsDocument())
        case .other: .other(.object(["type": .string("getDefault"), "key": .string("mode")]))
        }
    }
}

/// The native replies.
private enum Reply: CaseIterable {
    case snapshot, notModified, applied, enabled, error

    init(of reply: NativeReply) {
        switch reply {
        case .snapshot: self = .snapshot
        case .notModified: self = .notModified
        case .applied: self = .applied
        case .enabled: self = .enabled
        case .error: self = .error
        }
    }

    var sample: NativeReply {
        switch self {
        case .snapshot: .snapshot(SettingsDocument())
        case .notModified: .notModified(version)
        case .applied: .applied(version, changed: true)
        case .enabled: .enabled(true)
        case .error: .error(.invalidMessage, "")
        }
    }
}

/// The frames to a child as the pipe carries them (an event for the background goes as the
/// `input` it stands for).
private enum ToChildKind: CaseIterable {
    case input, proceed, fail

    init(of frame: ToChild) {
        switch frame {
        case .input: self = .input
        case .proceed: self = .proceed
        case .fail: self = .fail
        }
    }

    var sample: ToChild {
        switch self {
        case .input: .input(.app(.launched), now: 0, uptime: 0, seed: 0, flaws: [])
        case .proceed: .proceed(now: 0)
        case .fail: .fail(errno: 5, now: 0)
        }
    }
}

/// The frames from a child as the pipe carries them (directives handed over in process go as a
/// `done` frame).
private enum FromChildKind: CaseIterable {
    case hello, yield, done, error, log

    init(of frame: FromChild) {
        switch frame {
        case .hello: self = .hello
        case .yield: self = .yield
        case .done: self = .done
        case .error: self = .error
        case .log: self = .log
        }
    }

    var sample: FromChild {
        switch self {
        case .hello: .hello(role: "app", protocol: 1)
        case .yield: .yield(.lock, seq: 1)
        case .done: .done(.app([]))
        case .error: .error("")
        case .log: .log(level: .log, message: "", at: nil)
        }
    }
}
