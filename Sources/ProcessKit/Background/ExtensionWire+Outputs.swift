import SiteSettings

/// The background's outputs on the wire: what a directive becomes as it leaves the process, its
/// JSON, and reading it back.
extension ExtensionWire {
    /// A machine directive as it leaves the process, or nil for extension storage, which stays inside it.
    public static func output(_ directive: BackgroundMachine.Directive) -> Output? {
        switch directive {
        case .loadStorage, .saveLocalStorage, .saveSessionStorage: nil
        case .sendNative(let request, let message): .sendNative(request: request, message)
        case .setTimer(let timer, let at): .setTimer(timer, at: at)
        case .cancelTimer(let timer): .cancelTimer(timer)
        case .setAlarm(let at): .setAlarm(at: at)
        case .connectNative: .connectNative
        case .listen(let events): .listen(events)
        case .sendDecision(let tab, let decision): .sendDecision(tab, decision)
        case .showPopup(let view): .showPopup(view)
        case .popupAnswer(let message, let saved, let scope): .popupAnswer(message: message, saved: saved, scope: scope)
        }
    }

    /// An output as it travels.
    public static func json(_ output: Output) -> JSONValue {
        switch output {
        case .storagePending(let token): .object(["type": .string("storagePending"), "token": .integer(Int64(token))])
        case .sendNative(let request, let message):
            .object(["type": .string("sendNative"), "request": .integer(Int64(request)), "message": message.json])
        case .setTimer(let timer, let at): .object(["type": .string("setTimer"), "timer": json(timer), "at": .integer(at)])
        case .cancelTimer(let timer): .object(["type": .string("cancelTimer"), "timer": json(timer)])
        case .setAlarm(let at, let name, let period):
            .object(["type": .string("setAlarm"), "at": .integer(at)]
                .merging(name.isEmpty ? [:] : ["name": .string(name)]) { a, _ in a }
                .merging(period.map { ["period": .integer($0)] } ?? [:]) { a, _ in a })
        case .clearAlarm(let name): .object(["type": .string("clearAlarm"), "name": .string(name)])
        case .connectNative: .object(["type": .string("connectNative")])
        case .listen(let events): .object(["type": .string("listen"), "events": .array(events.map { .string($0.rawValue) })])
        case .sendDecision(let tab, let decision): .object(["type": .string("sendDecision"), "tab": .string(tab.rawValue), "decision": decision.json])
        case .showPopup(let view): .object(["type": .string("showPopup"), "view": view.json])
        case .popupAnswer(let message, let saved, let scope):
            .object(["type": .string("popupAnswer"), "message": .integer(Int64(message)), "saved": saved.map(JSONValue.bool) ?? .null,
                     "scope": scope.map { .string($0.text) } ?? .null])
        case .answerPage(let id, let answer):
            .object(["type": .string("answerPage"), "id": .integer(Int64(id))].merging(answer.map { ["answer": $0] } ?? [:]) { a, _ in a })
        case .messageTab(let tab, let id, let message):
            .object(["type": .string("messageTab"), "tab": .string(tab.rawValue), "id": .integer(Int64(id)), "message": message])
        case .messagePopup(let id, let message):
            .object(["type": .string("messagePopup"), "id": .integer(Int64(id)), "message": message])
        case .postOnPort(let port, let message): .object(["type": .string("portPost"), "port": .integer(Int64(port)), "message": message])
        case .closePort(let port): .object(["type": .string("portClose"), "port": .integer(Int64(port))])
        case .connectTab(let port, let tab, let name):
            .object(["type": .string("connectTab"), "port": .integer(Int64(port)), "tab": .string(tab.rawValue), "name": .string(name)])
        case .storageChanged(let area, let changes): .object(["type": .string("storageChanged"), "area": .string(area), "changes": changes])
        case .tabsCall(let request, let call):
            .object(["type": .string("tabsCall"), "request": .integer(Int64(request))].merging(json(call)) { a, _ in a })
        case .actionSet(let tab, let property, let value):
            .object(["type": .string("actionSet"), "property": .string(property.rawValue), "value": value]
                .merging(tab.map { ["tab": .string($0.rawValue)] } ?? [:]) { a, _ in a })
        case .menusChanged(let items): .object(["type": .string("menusChanged"), "items": .array(items.map(\.json))])
        case .permissionsRemoved(let permissions, let origins):
            .object(["type": .string("permissionsRemoved"), "permissions": .array(permissions.map { .string($0) }), "origins": .array(origins.map { .string($0) })])
        }
    }

    private static func json(_ call: TabsCall) -> [String: JSONValue] {
        switch call {
        case .create(let url, let active): ["method": .string("create"), "url": .string(url), "active": .bool(active)]
        case .update(let tab, let url, let active):
            ["method": .string("update"), "tab": .string(tab.rawValue)].merging(url.map { ["url": .string($0)] } ?? [:]) { a, _ in a }
                .merging(active.map { ["active": .bool($0)] } ?? [:]) { a, _ in a }
        case .reload(let tab): ["method": .string("reload"), "tab": .string(tab.rawValue)]
        case .remove(let tabs): ["method": .string("remove"), "tabs": .array(tabs.map { .string($0.rawValue) })]
        case .inject(let kind, let tab, let injection):
            ["method": .string(kind.rawValue), "tab": .string(tab.rawValue)].merging(injection.members) { a, _ in a }
        case .requestPermissions(let permissions, let origins):
            ["method": .string("requestPermissions"), "permissions": .array(permissions.map { .string($0) }), "origins": .array(origins.map { .string($0) })]
        }
    }

    /// An injection's one source: `func` (with `args`, an array), `files` (strings) or `code`.
    static func injection(_ directive: WireObject) throws(NativeMessageError) -> Injection {
        let given = ["func", "files", "code"].filter { directive.members[$0] != nil }
        guard given.count == 1 else { throw NativeMessageError(directive.path, "expected exactly one of func, files and code") }
        if given[0] != "func" && directive.members["args"] != nil { throw NativeMessageError(directive.path.key("args"), "expected only with func") }
        switch given[0] {
        case "func":
            let arguments: [JSONValue]
            switch directive.members["args"] {
            case nil: arguments = []
            case .array(let items)?: arguments = items
            case _?: throw NativeMessageError(directive.path.key("args"), "expected an array")
            }
            return .function(try directive.string("func"), arguments: arguments)
        case "files":
            guard case .array(let items) = try directive.value("files") else { throw NativeMessageError(directive.path.key("files"), "expected an array") }
            var files: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let file) = item else { throw NativeMessageError(directive.path.key("files").index(index), "expected a string") }
                files.append(file)
            }
            return .files(files)
        default:
            return .code(try directive.string("code"))
        }
    }

    static func json(_ timer: BackgroundTimer) -> JSONValue {
        switch timer {
        case .nativeTimeout(let request): .object(["nativeTimeout": .integer(Int64(request))])
        case .script(let number): .object(["script": .integer(Int64(number))])
        }
    }

    /// Reads an output back from its JSON form (`json`), as the harness reads a `done` frame;
    /// anything else is an error naming the member at fault. A `sendNative` message is read as
    /// sent (`NativeRequest.decode`), not validated as the handler will.
    public static func directive(_ json: JSONValue) throws(NativeMessageError) -> Output {
        let directive = try WireObject(json, at: .root)
        let path = directive.path
        let type = try directive.string("type")
        switch type {
        case "storagePending":
            try directive.allow(["type", "token"])
            return .storagePending(token: Int(try directive.integer("token")))
        case "sendNative":
            try directive.allow(["type", "request", "message"])
            // A native message is the extension's own: any JSON value is carried as it is.
            return .sendNative(request: Int(try directive.integer("request")), NativeRequest.decode(try directive.value("message")))
        case "setTimer":
            try directive.allow(["type", "timer", "at"])
            return .setTimer(try timer(directive.object("timer")), at: try directive.integer("at"))
        case "cancelTimer":
            try directive.allow(["type", "timer"])
            return .cancelTimer(try timer(directive.object("timer")))
        case "setAlarm":
            try directive.allow(["type", "at", "name", "period"])
            // `name` and `period` may be left out: the unnamed alarm, firing once.
            let period = directive.members["period"] == nil ? nil : try directive.integer("period")
            if let period, period <= 0 { throw NativeMessageError(path.key("period"), "expected a period longer than zero") }
            return .setAlarm(at: try directive.integer("at"), name: directive.members["name"] == nil ? "" : try directive.string("name"), period: period)
        case "clearAlarm":
            try directive.allow(["type", "name"])
            return .clearAlarm(name: try directive.string("name"))
        case "connectNative":
            try directive.allow(["type"])
            return .connectNative
        case "listen":
            try directive.allow(["type", "events"])
            guard case .array(let items) = try directive.value("events") else { throw NativeMessageError(path.key("events"), "expected an array") }
            var events: [BackgroundListener] = []
            for (index, item) in items.enumerated() {
                guard case .string(let name) = item, let event = BackgroundListener(rawValue: name) else {
                    throw NativeMessageError(path.key("events").index(index), "expected one of \(BackgroundListener.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                events.append(event)
            }
            return .listen(events)
        case "sendDecision":
            try directive.allow(["type", "tab", "decision"])
            return .sendDecision(TabID(try directive.string("tab")),
                                          try Decision.decode(try directive.value("decision"), at: path.key("decision")))
        case "showPopup":
            try directive.allow(["type", "view"])
            return .showPopup(try PopupView.decode(try directive.value("view"), at: path.key("view")))
        case "popupAnswer":
            try directive.allow(["type", "message", "saved", "scope"])
            let saved = try directive.nullable("saved") == nil ? nil : try directive.bool("saved")
            let scope = try directive.nullable("scope") == nil ? nil : try directive.scopeKey("scope")
            return .popupAnswer(message: Int(try directive.integer("message")), saved: saved, scope: scope)
        case "answerPage":
            try directive.allow(["type", "id", "answer"])
            return .answerPage(id: Int(clamping: try directive.integer("id")), answer: directive.members["answer"])
        case "messageTab":
            try directive.allow(["type", "tab", "id", "message"])
            return .messageTab(TabID(try directive.string("tab")), id: Int(clamping: try directive.integer("id")), message: try directive.value("message"))
        case "messagePopup":
            try directive.allow(["type", "id", "message"])
            return .messagePopup(id: Int(clamping: try directive.integer("id")), message: try directive.value("message"))
        case "portPost":
            try directive.allow(["type", "port", "message"])
            return .postOnPort(port: Int(clamping: try directive.integer("port")), message: try directive.value("message"))
        case "portClose":
            try directive.allow(["type", "port"])
            return .closePort(port: Int(clamping: try directive.integer("port")))
        case "connectTab":
            try directive.allow(["type", "port", "tab", "name"])
            let port = Int(clamping: try directive.integer("port"))
            guard port < 0 else { throw NativeMessageError(path.key("port"), "expected a number below 0 (a page's ports are numbered above it)") }
            return .connectTab(port: port, tab: TabID(try directive.string("tab")), name: try directive.string("name"))
        case "tabsCall":
            try directive.allow(["type", "request", "method", "tab", "tabs", "url", "active", "func", "args", "files", "code", "permissions", "origins"])
            let request = Int(clamping: try directive.integer("request"))
            let url = directive.members["url"] == nil ? nil : try directive.string("url")
            let active = directive.members["active"] == nil ? nil : try directive.bool("active")
            switch try directive.string("method") {
            case "create":
                guard let url else { throw NativeMessageError(path.key("url"), "expected a string") }
                return .tabsCall(request: request, .create(url: url, active: active ?? true))
            case "update": return .tabsCall(request: request, .update(TabID(try directive.string("tab")), url: url, active: active))
            case "reload": return .tabsCall(request: request, .reload(TabID(try directive.string("tab"))))
            case "remove": return .tabsCall(request: request, .remove(try directive.strings("tabs").map { TabID($0) }))
            case "requestPermissions": return .tabsCall(request: request, .requestPermissions(permissions: try directive.strings("permissions"), origins: try directive.strings("origins")))
            case let method:
                guard let kind = InjectionKind(rawValue: method) else {
                    throw NativeMessageError(path.key("method"),
                                             "expected create, update, reload, remove, executeScript, insertCSS, removeCSS or requestPermissions, not '\(method.prefix(32))'")
                }
                return .tabsCall(request: request, .inject(kind, TabID(try directive.string("tab")), try injection(directive)))
            }
        case "actionSet":
            try directive.allow(["type", "property", "value", "tab"])
            guard let property = ExtensionAction.Property(rawValue: try directive.string("property")) else {
                throw NativeMessageError(path.key("property"), ExtensionAction.expectedProperty)
            }
            let tab = directive.members["tab"] == nil ? nil : TabID(try directive.string("tab"))
            return .actionSet(tab: tab, property: property, value: try directive.value("value"))
        case "menusChanged":
            try directive.allow(["type", "items"])
            guard case .array(let items) = try directive.value("items") else { throw NativeMessageError(path.key("items"), "expected an array of menu items") }
            var menus: [ExtensionMenuItem] = []
            for (index, item) in items.enumerated() { menus.append(try ExtensionMenuItem.decode(item, at: path.key("items").index(index))) }
            return .menusChanged(menus)
        case "permissionsRemoved":
            try directive.allow(["type", "permissions", "origins"])
            return .permissionsRemoved(permissions: try directive.strings("permissions"), origins: try directive.strings("origins"))
        case "storageChanged":
            try directive.allow(["type", "area", "changes"])
            return .storageChanged(area: try storageArea(directive.string("area"), at: path.key("area")), changes: try changes(directive.value("changes"), at: path.key("changes")))
        default:
            throw NativeMessageError(path.key("type"), "unknown directive '\(type.prefix(64))'")
        }
    }

    /// A storage area's name: `local`, `session` or `sync`.
    static func storageArea(_ name: String, at path: JSONPath) throws(NativeMessageError) -> String {
        guard ["local", "session", "sync"].contains(name) else { throw NativeMessageError(path, "expected local, session or sync") }
        return name
    }

    /// What changed in storage, as `storage.onChanged` gives it: an object.
    static func changes(_ value: JSONValue, at path: JSONPath) throws(NativeMessageError) -> JSONValue {
        guard case .object = value else { throw NativeMessageError(path, "expected an object") }
        return value
    }

    static func timer(_ timer: WireObject) throws(NativeMessageError) -> BackgroundTimer {
        try timer.allow(["nativeTimeout", "script"])
        switch (timer["nativeTimeout"], timer["script"]) {
        case (_, nil): return .nativeTimeout(Int(try timer.integer("nativeTimeout")))
        case (nil, _?): return .script(Int(try timer.integer("script")))
        case (_?, _?): throw NativeMessageError(timer.path, "expected one of nativeTimeout and script, not both")
        }
    }
}
