import SiteSettings

/// How the background's inputs and directives travel in `input` and `done` frames.
///
/// Inputs (`type`): `started` (`appearance`, `utcOffsetMinutes`, `tabs`: {id: url}),
/// `storageCompleted` (`token`), `tabRequestedDecision` (`tab`, `url`, `nativeDark`),
/// `tabNativeDarkChanged` (`tab`, `nativeDark`), `tabActivated` / `tabClosed` (`tab`),
/// `safariForeground`, `appMessage`, `appearanceChanged` (`appearance`), `popupOpened` (`tab`),
/// `popupClosed`, `popupChoseScope` (`scope`), `popupEdited` (`set`, `reset`, `message`, `at`),
/// `popupForgotSite` (`message`, `at`), `popupPaused` (`until`), `nativeReply` (`request`, `message`),
/// `nativeTimeout` (`request`), `alarmFired`.
///
/// Directives (`type`): `storagePending` (`token`: send `storageCompleted` with it when the
/// storage operation should finish), `sendNative` (`request`, `message`), `setTimer` /
/// `cancelTimer` (`timer`: `{"nativeTimeout": N}`, `at`), `setAlarm` (`at`), `decision` (`tab`,
/// `decision`), `popup` (`view`), `popupAnswer` (`message`, `saved`, `scope`).
public enum ExtensionWire {
    public static func decode(_ json: JSONValue, now: EpochMillis) throws(NativeMessageError) -> ExtensionInput {
        let root = JSONPath.root
        let members = try NativeRequest.object(json, root)
        func string(_ name: String) throws(NativeMessageError) -> String {
            guard case .string(let value)? = members[name] else { throw NativeMessageError(root.key(name), "expected a string") }
            return value
        }
        func integer(_ name: String) throws(NativeMessageError) -> Int64 {
            guard case .integer(let value)? = members[name] else { throw NativeMessageError(root.key(name), "expected an integer") }
            return value
        }
        func bool(_ name: String) -> Bool { members[name] == .bool(true) }
        /// The popup's message number: optional, 0 when absent.
        func message() throws(NativeMessageError) -> Int { members["message"] == nil ? 0 : Int(clamping: try integer("message")) }
        /// When the user acted, if the popup says (optional).
        func actionTime() throws(NativeMessageError) -> EpochMillis? {
            guard members["at"] != nil else { return nil }
            let at = try integer("at")
            guard (0...DocumentCodec.latestTime).contains(at) else { throw NativeMessageError(root.key("at"), "time \(at) is out of range") }
            return at
        }
        func appearance() throws(NativeMessageError) -> Appearance {
            guard let value = Appearance(rawValue: try string("appearance")) else {
                throw NativeMessageError(root.key("appearance"), "expected light or dark")
            }
            return value
        }
        func tab() throws(NativeMessageError) -> TabID { TabID(try string("tab")) }
        typealias Input = BackgroundMachine.Input

        guard case .string(let type)? = members["type"] else { throw NativeMessageError(root.key("type"), "expected a string") }
        switch type {
        case "started":
            var tabs: [TabID: String] = [:]
            if case .object(let open)? = members["tabs"] {
                for (id, url) in open { if case .string(let text) = url { tabs[TabID(id)] = text } }
            }
            let offset = members["utcOffsetMinutes"].flatMap { if case .integer(let n) = $0 { Int(n) } else { nil } } ?? 0
            guard (-18 * 60...18 * 60).contains(offset) else { throw NativeMessageError(root.key("utcOffsetMinutes"), "expected minutes within ±18 hours") }
            return .machine(.started(now: now, appearance: try appearance(), utcOffsetMinutes: offset, tabs: tabs))
        case "storageCompleted": return .storageCompleted(token: Int(try integer("token")))
        case "tabRequestedDecision": return .machine(.tabRequestedDecision(try tab(), url: try string("url"), nativeDark: bool("nativeDark"), now: now))
        case "tabNativeDarkChanged": return .machine(.tabNativeDarkChanged(try tab(), nativeDark: bool("nativeDark"), now: now))
        case "tabActivated": return .machine(.tabActivated(try tab(), now: now))
        case "tabClosed": return .machine(.tabClosed(try tab(), now: now))
        case "safariForeground": return .machine(.safariCameToForeground(now: now))
        case "appMessage": return .machine(.appMessageArrived(now: now))
        case "appearanceChanged": return .machine(.appearanceChanged(try appearance(), now: now))
        case "popupOpened": return .machine(.popupOpened(try tab(), now: now))
        case "popupClosed": return .machine(.popupClosed(now: now))
        case "popupChoseScope":
            let text = try string("scope")
            let scope: ScopeKey
            do { scope = try ScopeKey.parse(text) } catch { throw NativeMessageError(root.key("scope"), error.description) }
            return .machine(.popupChoseScope(scope, now: now))
        case "popupEdited":
            return .machine(.popupEdited(set: try NativeRequest.values(members["set"], root.key("set")),
                                         reset: try NativeRequest.resetFields(members["reset"], root.key("reset")),
                                         message: try message(), at: try actionTime(), now: now))
        case "popupForgotSite": return .machine(.popupForgotSite(message: try message(), at: try actionTime(), now: now))
        case "popupPaused":
            let until = try integer("until")
            guard (0...DocumentCodec.latestTime).contains(until) else { throw NativeMessageError(root.key("until"), "time \(until) is out of range") }
            return .machine(.popupPaused(until: until, now: now))
        case "nativeReply":
            guard let message = members["message"] else { throw NativeMessageError(root.key("message"), "missing") }
            return .machine(.nativeReplyArrived(request: Int(try integer("request")), message, now: now))
        case "nativeTimeout": return .machine(.timerFired(.nativeTimeout(Int(try integer("request"))), now: now))
        case "alarmFired": return .machine(.alarmFired(now: now))
        default: throw NativeMessageError(root.key("type"), "unknown input '\(type.prefix(64))'")
        }
    }

    public static func json(_ directive: BackgroundMachine.Directive) -> JSONValue? {
        switch directive {
        case .loadStorage, .saveLocalStorage, .saveSessionStorage: nil
        case .sendNative(let request, let message):
            .object(["type": .string("sendNative"), "request": .integer(Int64(request)), "message": message.json])
        case .setTimer(.nativeTimeout(let request), let at):
            .object(["type": .string("setTimer"), "timer": .object(["nativeTimeout": .integer(Int64(request))]), "at": .integer(at)])
        case .cancelTimer(.nativeTimeout(let request)):
            .object(["type": .string("cancelTimer"), "timer": .object(["nativeTimeout": .integer(Int64(request))])])
        case .setAlarm(let at): .object(["type": .string("setAlarm"), "at": .integer(at)])
        case .sendDecision(let tab, let decision): .object(["type": .string("decision"), "tab": .string(tab.rawValue), "decision": decision.json])
        case .showPopup(let view): .object(["type": .string("popup"), "view": view.json])
        case .popupAnswer(let message, let saved, let scope):
            .object(["type": .string("popupAnswer"), "message": .integer(Int64(message)), "saved": saved.map(JSONValue.bool) ?? .null,
                     "scope": scope.map { .string($0.text) } ?? .null])
        }
    }
}

/// An input to the background's process: one for the machine, or the completion of a storage
/// operation the process started earlier.
public enum ExtensionInput: Equatable, Sendable {
    case machine(BackgroundMachine.Input)
    case storageCompleted(token: Int)
}
