import SiteSettings

/// How the app's inputs and directives travel in `input` and `done` frames.
///
/// Inputs: `{"type": "launched"}`, `{"type": "foreground"}`, `{"type": "changeNotification"}`,
/// `{"type": "edit", "edit": E}` where E is `{"kind": "setDefaults", "set": {"mode": …, "theme":
/// …, "nativeDarkPolicy": …, "schedule": {"start": "20:00", "end": "06:00"}}}`, `{"kind":
/// "changeSite", "scope": …, "set": {…}, "reset": […]}` or `{"kind": "deleteSite", "scope": …}`.
/// Directives: `{"type": "view", "view": {…}}`, `{"type": "editSaved", "revision": 43,
/// "changed": true}`, `{"type": "editRefused", "code": …, "message": …}`, `{"type": "messageExtension"}`.
public enum AppWire {
    public static func decode(_ input: JSONValue, now: EpochMillis, seed: UInt64,
                              suffixes: PublicSuffixList = .embedded) throws(NativeMessageError) -> AppMachine.Input {
        let root = JSONPath.root
        let members = try NativeRequest.object(input, root)
        switch members["type"] {
        case .string("launched")?: return .launched(now: now, seed: seed)
        case .string("foreground")?: return .cameToForeground(now: now)
        case .string("changeNotification")?: return .changeNotificationArrived(now: now)
        case .string("edit")?:
            guard let edit = members["edit"] else { throw NativeMessageError(root.key("edit"), "missing") }
            return .userEdited(try userEdit(edit, root.key("edit"), suffixes), now: now)
        default:
            throw NativeMessageError(root.key("type"), "expected launched, foreground, changeNotification or edit")
        }
    }

    private static func userEdit(_ json: JSONValue, _ path: JSONPath, _ suffixes: PublicSuffixList) throws(NativeMessageError) -> AppMachine.UserEdit {
        let members = try NativeRequest.object(json, path)
        switch members["kind"] {
        case .string("setDefaults")?:
            try NativeRequest.allow(members, ["kind", "set"], path)
            let setPath = path.key("set")
            var rest = try NativeRequest.object(members["set"] ?? .object([:]), setPath)
            var schedule: Schedule?
            if let value = rest.removeValue(forKey: "schedule") {
                let fields = try NativeRequest.object(value, setPath.key("schedule"))
                guard case .string(let start)? = fields["start"], case .string(let end)? = fields["end"],
                      let from = TimeOfDay(start), let to = TimeOfDay(end) else {
                    throw NativeMessageError(setPath.key("schedule"), "expected {\"start\": \"HH:MM\", \"end\": \"HH:MM\"}")
                }
                schedule = Schedule(start: from, end: to)
            }
            let values = try NativeRequest.values(.object(rest), setPath)
            return .setDefaults(DefaultsValues(mode: values.mode, theme: values.theme,
                                               nativeDarkPolicy: values.nativeDarkPolicy, schedule: schedule))
        case .string("changeSite")?:
            try NativeRequest.allow(members, ["kind", "scope", "set", "reset"], path)
            return .changeSite(try NativeRequest.scopeKey(members, path, suffixes),
                               set: try NativeRequest.values(members["set"], path.key("set")),
                               reset: try NativeRequest.resetFields(members["reset"], path.key("reset")))
        case .string("deleteSite")?:
            try NativeRequest.allow(members, ["kind", "scope"], path)
            return .deleteSite(try NativeRequest.scopeKey(members, path, suffixes))
        default:
            throw NativeMessageError(path.key("kind"), "expected setDefaults, changeSite or deleteSite")
        }
    }

    public static func json(_ directive: AppMachine.Directive) -> JSONValue? {
        switch directive {
        case .container: nil
        case .showView(let view): .object(["type": .string("view"), "view": view.json])
        case .editSaved(let revision, let changed): .object(["type": .string("editSaved"), "revision": .integer(revision), "changed": .bool(changed)])
        case .editRefused(let code, let message): .object(["type": .string("editRefused"), "code": .string(code.rawValue), "message": .string(message)])
        case .messageExtension: .object(["type": .string("messageExtension")])
        }
    }
}
