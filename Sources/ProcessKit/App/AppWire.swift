import SiteSettings

/// How the app's inputs and directives travel in `input` and `done` frames, both ways: the
/// harness encodes events and decodes directives, the app's shell decodes events and encodes
/// directives, with the same code.
///
/// Inputs: `{"type": "launched"}`, `{"type": "cameToForeground"}`, `{"type": "changeNotificationArrived"}`,
/// `{"type": "userEdited", "edit": E}` where E is `{"kind": "setDefaults", "set": {"mode": …, "theme":
/// …, "nativeDarkPolicy": …, "schedule": {"start": "20:00", "end": "06:00"}}}`, `{"kind":
/// "changeSite", "scope": …, "set": {…}, "reset": […]}` (`set` and `reset` each left out when
/// empty) or `{"kind": "deleteSite", "scope": …}`.
/// Directives: `{"type": "showView", "view": {…}}` (see `AppView`), `{"type": "editSaved",
/// "revision": 43, "changed": true}`, `{"type": "editRefused", "code": …, "message": …}`,
/// `{"type": "messageExtension"}`.
public enum AppWire {
    /// An input as the harness sends it; the frame carries the time and the seed.
    public enum Event: Equatable, Sendable {
        case launched
        case cameToForeground
        /// The handler's change notification, delivered while the app runs and is not suspended.
        case changeNotificationArrived
        case userEdited(UserEdit)
    }

    /// An edit in the app's settings screen as it travels: a scope key is the text the user
    /// typed, which the app reads into its canonical form (`AppMachine.UserEdit` holds that).
    public enum UserEdit: Equatable, Sendable {
        case setDefaults(DefaultsValues)
        /// `reset` in the order the user named the fields.
        case changeSite(scope: String, set: SiteValues, reset: [SiteField])
        case deleteSite(scope: String)
    }

    // MARK: - Inputs

    /// The JSON the harness sends for an event.
    public static func encode(_ event: Event) -> JSONValue {
        switch event {
        case .launched: .object(["type": .string("launched")])
        case .cameToForeground: .object(["type": .string("cameToForeground")])
        case .changeNotificationArrived: .object(["type": .string("changeNotificationArrived")])
        case .userEdited(let edit): .object(["type": .string("userEdited"), "edit": json(edit)])
        }
    }

    private static func json(_ edit: UserEdit) -> JSONValue {
        switch edit {
        case .setDefaults(let values):
            var set = SiteValues(mode: values.mode, theme: values.theme, nativeDarkPolicy: values.nativeDarkPolicy).jsonMembers
            if let schedule = values.schedule {
                set["schedule"] = .object(["start": .string(schedule.start.description), "end": .string(schedule.end.description)])
            }
            return .object(["kind": .string("setDefaults"), "set": .object(set)])
        case .changeSite(let scope, let set, let reset):
            var object: [String: JSONValue] = ["kind": .string("changeSite"), "scope": .string(scope)]
            if !set.isEmpty { object["set"] = set.json }
            if !reset.isEmpty { object["reset"] = .fields(reset) }
            return .object(object)
        case .deleteSite(let scope):
            return .object(["kind": .string("deleteSite"), "scope": .string(scope)])
        }
    }

    /// Reads an input's JSON; anything that is not one of the forms above is an error naming
    /// the member at fault. Scope keys are read later, by `input(for:now:seed:suffixes:)`.
    public static func decode(_ json: JSONValue) throws(NativeMessageError) -> Event {
        let root = JSONPath.root
        let members = try NativeRequest.object(json, root)
        switch members["type"] {
        case .string("launched")?: return .launched
        case .string("cameToForeground")?: return .cameToForeground
        case .string("changeNotificationArrived")?: return .changeNotificationArrived
        case .string("userEdited")?:
            guard let edit = members["edit"] else { throw NativeMessageError(root.key("edit"), "missing") }
            return .userEdited(try userEdit(edit, root.key("edit")))
        default:
            throw NativeMessageError(root.key("type"), "expected launched, cameToForeground, changeNotificationArrived or userEdited")
        }
    }

    private static func userEdit(_ json: JSONValue, _ path: JSONPath) throws(NativeMessageError) -> UserEdit {
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
            let scope = try NativeRequest.scopeText(members, path)
            let set = try NativeRequest.values(members["set"], path.key("set"))
            var reset: [SiteField] = []
            if let list = members["reset"] { reset = try NativeRequest.fieldList(list, path.key("reset")) }
            return .changeSite(scope: scope, set: set, reset: reset)
        case .string("deleteSite")?:
            try NativeRequest.allow(members, ["kind", "scope"], path)
            return .deleteSite(scope: try NativeRequest.scopeText(members, path))
        default:
            throw NativeMessageError(path.key("kind"), "expected setDefaults, changeSite or deleteSite")
        }
    }

    /// The machine's input for an event that arrived at `now`: scope keys are read into their
    /// canonical form (an invalid one is an error at `edit.scope`), reset fields sorted.
    public static func input(for event: Event, now: EpochMillis, seed: UInt64,
                             suffixes: PublicSuffixList = .embedded) throws(NativeMessageError) -> AppMachine.Input {
        switch event {
        case .launched: return .launched(now: now, seed: seed)
        case .cameToForeground: return .cameToForeground(now: now)
        case .changeNotificationArrived: return .changeNotificationArrived(now: now)
        case .userEdited(let edit):
            let scope = JSONPath.root.key("edit").key("scope")
            return switch edit {
            case .setDefaults(let values):
                .userEdited(.setDefaults(values), now: now)
            case .changeSite(let text, let set, let reset):
                .userEdited(.changeSite(try NativeRequest.scopeKey(text, scope, suffixes), set: set, reset: reset.sorted()), now: now)
            case .deleteSite(let text):
                .userEdited(.deleteSite(try NativeRequest.scopeKey(text, scope, suffixes)), now: now)
            }
        }
    }

    // MARK: - Outputs

    /// What the app sends out of its process: its directives but container work, which it
    /// carries out itself.
    public enum Output: Equatable, Sendable {
        /// The settings screen now shows this view.
        case showView(AppView)
        /// The user's edit is saved at `revision` (`changed`: false when it changed nothing).
        case editSaved(revision: Int64, changed: Bool)
        case editRefused(NativeErrorCode, String)
        /// The app messages the extension (macOS): Safari wakes its background with `appMessageArrived`.
        case messageExtension
    }

    /// An event's name: its `type` on the wire.
    public static func name(_ event: Event) -> String {
        switch event {
        case .launched: "launched"
        case .cameToForeground: "cameToForeground"
        case .changeNotificationArrived: "changeNotificationArrived"
        case .userEdited: "userEdited"
        }
    }

    /// An output's name: its `type` on the wire.
    public static func name(_ output: Output) -> String {
        switch output {
        case .showView: "showView"
        case .editSaved: "editSaved"
        case .editRefused: "editRefused"
        case .messageExtension: "messageExtension"
        }
    }

    /// A machine directive as it leaves the process, or nil for container work, which stays inside it.
    public static func output(_ directive: AppMachine.Directive) -> Output? {
        switch directive {
        case .container: nil
        case .showView(let view): .showView(view)
        case .editSaved(let revision, let changed): .editSaved(revision: revision, changed: changed)
        case .editRefused(let code, let message): .editRefused(code, message)
        case .messageExtension: .messageExtension
        }
    }

    /// An output as it travels.
    public static func json(_ output: Output) -> JSONValue {
        switch output {
        case .showView(let view): .object(["type": .string("showView"), "view": view.json])
        case .editSaved(let revision, let changed): .object(["type": .string("editSaved"), "revision": .integer(revision), "changed": .bool(changed)])
        case .editRefused(let code, let message): .object(["type": .string("editRefused"), "code": .string(code.rawValue), "message": .string(message)])
        case .messageExtension: .object(["type": .string("messageExtension")])
        }
    }

    /// Reads a directive back from its JSON form (`json`), as the harness reads a `done` frame;
    /// anything else is an error naming the member at fault.
    public static func directive(_ json: JSONValue) throws(NativeMessageError) -> Output {
        let directive = try WireObject(json, at: .root)
        let type = try directive.string("type")
        switch type {
        case "showView":
            try directive.allow(["type", "view"])
            return .showView(try AppView.decode(try directive.value("view"), at: directive.path.key("view")))
        case "editSaved":
            try directive.allow(["type", "revision", "changed"])
            return .editSaved(revision: try directive.integer("revision"), changed: try directive.bool("changed"))
        case "editRefused":
            try directive.allow(["type", "code", "message"])
            return .editRefused(try directive.choice("code"), try directive.string("message"))
        case "messageExtension":
            try directive.allow(["type"])
            return .messageExtension
        default:
            throw NativeMessageError(directive.path.key("type"), "unknown directive '\(type.prefix(64))'")
        }
    }
}
