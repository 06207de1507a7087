import SiteSettings

/// The background's inputs on the wire: the JSON the harness sends for each event, reading it
/// back, and what the built-in background's process does with each.
extension ExtensionWire {
    /// The alarms Safari holds, by name: {name: {`at`, `period`}}.
    private static func encode(_ alarms: [String: Alarm]) -> JSONValue {
        .object(alarms.mapValues { alarm in
            .object(["at": .integer(alarm.at)].merging(alarm.period.map { ["period": .integer($0)] } ?? [:]) { a, _ in a })
        })
    }

    private static func alarms(_ value: JSONValue, at path: JSONPath) throws(NativeMessageError) -> [String: Alarm] {
        guard case .object(let held) = value else { throw NativeMessageError(path, "expected an object of alarms by name") }
        var alarms: [String: Alarm] = [:]
        for (name, alarm) in held {
            let path = path.key(name)
            guard case .object(let fields) = alarm, case .integer(let at)? = fields["at"] else {
                throw NativeMessageError(path, "expected {\"at\": milliseconds, \"period\": milliseconds}")
            }
            var period: EpochMillis?
            if let value = fields["period"] {
                guard case .integer(let every) = value, every > 0 else { throw NativeMessageError(path.key("period"), "expected milliseconds above zero") }
                period = every
            }
            alarms[name] = Alarm(at: at, period: period)
        }
        return alarms
    }

    /// The JSON the harness sends for an event.
    public static func encode(_ event: Event) -> JSONValue {
        func input(_ type: String, _ members: [String: JSONValue] = [:]) -> JSONValue {
            .object(members.merging(["type": .string(type)]) { _, type in type })
        }
        switch event {
        case .started(let appearance, let offset, let tabs, let appMessages, let alarms, let reason, let version, let previousVersion, let action, let menus):
            var members: [String: JSONValue] = ["appearance": .string(appearance.rawValue),
                                                "tabs": .object(Dictionary(uniqueKeysWithValues: tabs.map { ($0.key.rawValue, .string($0.value)) }))]
            if offset != 0 { members["utcOffsetMinutes"] = .integer(Int64(offset)) }
            if appMessages { members["appMessages"] = .bool(true) }
            if let reason { members["reason"] = .string(reason.rawValue) }
            if !alarms.isEmpty { members["alarms"] = encode(alarms) }
            if let version { members["version"] = .string(version) }
            if let previousVersion { members["previousVersion"] = .string(previousVersion) }
            if !action.isEmpty { members["action"] = action.json }
            if !menus.isEmpty { members["menus"] = .array(menus.map(\.json)) }
            return input("started", members)
        case .storageCompleted(let token): return input("storageCompleted", ["token": .integer(Int64(token))])
        case .tabRequestedDecision(let tab, let url, let nativeDark):
            return input("tabRequestedDecision", ["tab": .string(tab.rawValue), "url": .string(url), "nativeDark": .bool(nativeDark)])
        case .tabNativeDarkChanged(let tab, let nativeDark):
            return input("tabNativeDarkChanged", ["tab": .string(tab.rawValue), "nativeDark": .bool(nativeDark)])
        case .tabActivated(let tab): return input("tabActivated", ["tab": .string(tab.rawValue)])
        case .tabClosed(let tab): return input("tabClosed", ["tab": .string(tab.rawValue)])
        case .safariCameToForeground: return input("safariCameToForeground")
        case .safariWentToBackground: return input("safariWentToBackground")
        case .appMessageArrived(let message): return input("appMessageArrived", message.map { ["message": $0] } ?? [:])
        case .appearanceChanged(let appearance): return input("appearanceChanged", ["appearance": .string(appearance.rawValue)])
        case .popupOpened(let tab): return input("popupOpened", ["tab": .string(tab.rawValue)])
        case .popupClosed: return input("popupClosed")
        case .popupChoseScope(let scope): return input("popupChoseScope", ["scope": .string(scope)])
        case .popupEdited(let set, let reset, let message, let at):
            var members: [String: JSONValue] = ["set": set.json, "reset": .fields(reset), "message": .integer(Int64(message))]
            if let at { members["at"] = .integer(at) }
            return input("popupEdited", members)
        case .popupForgotSite(let message, let at):
            var members: [String: JSONValue] = ["message": .integer(Int64(message))]
            if let at { members["at"] = .integer(at) }
            return input("popupForgotSite", members)
        case .popupPaused(let until): return input("popupPaused", ["until": .integer(until)])
        case .nativeReplyArrived(let request, let outcome):
            let reply: [String: JSONValue] = switch outcome {
            case .replied(let reply): ["reply": reply.json]
            case .unreadable(let json): ["reply": json]
            case .empty: [:]
            case .rejected(let reason): ["rejected": .string(reason.rawValue)]
            }
            return input("nativeReplyArrived", reply.merging(["request": .integer(Int64(request))]) { a, _ in a })
        case .timerFired(let timer): return input("timerFired", ["timer": json(timer)])
        case .alarmFired(let name): return name.isEmpty ? input("alarmFired") : input("alarmFired", ["name": .string(name)])
        case .alarmsChanged(let alarms): return input("alarmsChanged", ["alarms": encode(alarms)])
        case .menusChanged(let items): return input("menusChanged", ["items": .array(items.map(\.json))])
        case .pageMessage(let id, let from, let message, let active, let userGesture):
            var members: [String: JSONValue] = ["id": .integer(Int64(id)), "message": message]
            if let active { members["active"] = .string(active.rawValue) }
            if userGesture { members["userGesture"] = .bool(true) }
            switch from {
            case .tab(let tab, let url): members["tab"] = .string(tab.rawValue); members["url"] = .string(url)
            case .popup: members["popup"] = .bool(true)
            }
            return input("pageMessage", members)
        case .pageAnswered(let id, let answer, let unreachable):
            var members: [String: JSONValue] = ["id": .integer(Int64(id))]
            if let answer { members["answer"] = answer }
            if unreachable { members["unreachable"] = .bool(true) }
            return input("pageAnswered", members)
        case .portOpened(let port, let name, let from):
            var members: [String: JSONValue] = ["port": .integer(Int64(port)), "name": .string(name)]
            switch from {
            case .tab(let tab, let url): members["tab"] = .string(tab.rawValue); members["url"] = .string(url)
            case .popup: members["popup"] = .bool(true)
            }
            return input("portOpened", members)
        case .portMessage(let port, let message): return input("portMessage", ["port": .integer(Int64(port)), "message": message])
        case .portClosed(let port, let error):
            return input("portClosed", ["port": .integer(Int64(port))].merging(error.map { ["error": .string($0)] } ?? [:]) { a, _ in a })
        case .storageChanged(let area, let changes): return input("storageChanged", ["area": .string(area), "changes": changes])
        case .tabCreated(let tab, let url): return input("tabCreated", ["tab": .string(tab.rawValue), "url": .string(url)])
        case .tabUpdated(let tab, let url, let status, let urlChanged):
            var members: [String: JSONValue] = ["tab": .string(tab.rawValue), "url": .string(url), "status": .string(status.rawValue)]
            if urlChanged { members["urlChanged"] = .bool(true) }
            return input("tabUpdated", members)
        case .tabsAnswered(let request, let tab, let url, let error, let results, let granted):
            var members: [String: JSONValue] = ["request": .integer(Int64(request))]
            if let granted { members["granted"] = .bool(granted) }
            if let tab { members["tab"] = .string(tab.rawValue) }
            if let url { members["url"] = .string(url) }
            if let error { members["error"] = .string(error) }
            if let results { members["results"] = results }
            return input("tabsAnswered", members)
        case .menuClicked(let id, let parentId, let tab, let url, let checked, let wasChecked):
            var members: [String: JSONValue] = ["id": id, "tab": .string(tab.rawValue), "url": .string(url)]
            if let parentId { members["parentId"] = parentId }
            if let checked { members["checked"] = .bool(checked) }
            if let wasChecked { members["wasChecked"] = .bool(wasChecked) }
            return input("menuClicked", members)
        case .commandPressed(let name, let tab, let url):
            var members: [String: JSONValue] = ["name": .string(name)]
            if let tab { members["tab"] = .string(tab.rawValue) }
            if let url { members["url"] = .string(url) }
            return input("commandPressed", members)
        case .actionClicked(let tab, let url): return input("actionClicked", ["tab": .string(tab.rawValue), "url": .string(url)])
        case .navigated(let tab, let url, let stage):
            return input("webNavigation", ["tab": .string(tab.rawValue), "url": .string(url), "stage": .string(stage.rawValue)])
        case .permissionsChanged(let added, let permissions, let origins):
            return input("permissionsChanged", ["change": .string(added ? "added" : "removed"), "permissions": .array(permissions.map { .string($0) }),
                                                "origins": .array(origins.map { .string($0) })])
        }
    }

    /// Reads an input's JSON; anything that is not one of the forms above is an error naming
    /// the member at fault. A chosen scope is read later, by `input(for:now:)`.
    public static func decode(_ json: JSONValue) throws(NativeMessageError) -> Event {
        let root = JSONPath.root
        let object = try WireObject(json, at: root)
        let members = object.members
        func string(_ name: String) throws(NativeMessageError) -> String { try object.string(name) }
        func integer(_ name: String) throws(NativeMessageError) -> Int64 { try object.integer(name) }
        /// A string member that may be left out.
        func optionalString(_ name: String) throws(NativeMessageError) -> String? { members[name] == nil ? nil : try string(name) }
        /// A boolean member that may be left out.
        func optionalBool(_ name: String) throws(NativeMessageError) -> Bool? {
            switch members[name] {
            case nil: return nil
            case .bool(let value)?: return value
            case _?: throw NativeMessageError(root.key(name), "expected a boolean")
            }
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

        guard case .string(let type)? = members["type"] else { throw NativeMessageError(root.key("type"), "expected a string") }
        switch type {
        case "started":
            var tabs: [TabID: String] = [:]
            if case .object(let open)? = members["tabs"] {
                for (id, url) in open { if case .string(let text) = url { tabs[TabID(id)] = text } }
            }
            let offset = members["utcOffsetMinutes"].flatMap { if case .integer(let n) = $0 { Int(n) } else { nil } } ?? 0
            guard (-18 * 60...18 * 60).contains(offset) else { throw NativeMessageError(root.key("utcOffsetMinutes"), "expected minutes within ±18 hours") }
            let alarms = try members["alarms"].map { value throws(NativeMessageError) in try Self.alarms(value, at: root.key("alarms")) } ?? [:]
            var reason: StartReason?
            if let value = members["reason"] {
                guard case .string(let text) = value, let known = StartReason(rawValue: text) else { throw NativeMessageError(root.key("reason"), "expected startup, install or update") }
                reason = known
            }
            let action = try members["action"].map { value throws(NativeMessageError) in try ExtensionAction.decode(value, at: root.key("action")) } ?? ExtensionAction()
            var menus: [ExtensionMenuItem] = []
            if let value = members["menus"] {
                guard case .array(let items) = value else { throw NativeMessageError(root.key("menus"), "expected an array of menu items") }
                for (index, item) in items.enumerated() { menus.append(try ExtensionMenuItem.decode(item, at: root.key("menus").index(index))) }
            }
            return .started(appearance: try appearance(), utcOffsetMinutes: offset, tabs: tabs, appMessages: bool("appMessages"), alarms: alarms, reason: reason,
                            version: try optionalString("version"), previousVersion: try optionalString("previousVersion"), action: action, menus: menus)
        case "storageCompleted": return .storageCompleted(token: Int(try integer("token")))
        case "tabRequestedDecision": return .tabRequestedDecision(try tab(), url: try string("url"), nativeDark: bool("nativeDark"))
        case "tabNativeDarkChanged": return .tabNativeDarkChanged(try tab(), nativeDark: bool("nativeDark"))
        case "tabActivated": return .tabActivated(try tab())
        case "tabClosed": return .tabClosed(try tab())
        case "safariCameToForeground": return .safariCameToForeground
        case "safariWentToBackground": return .safariWentToBackground
        case "appMessageArrived": return .appMessageArrived(message: members["message"])
        case "appearanceChanged": return .appearanceChanged(try appearance())
        case "popupOpened": return .popupOpened(try tab())
        case "popupClosed": return .popupClosed
        case "popupChoseScope": return .popupChoseScope(scope: try string("scope"))
        case "popupEdited":
            let set = try NativeRequest.values(members["set"], root.key("set"))
            var reset: [SiteField] = []
            if let list = members["reset"] { reset = try NativeRequest.fieldList(list, root.key("reset")) }
            return .popupEdited(set: set, reset: reset, message: try message(), at: try actionTime())
        case "popupForgotSite": return .popupForgotSite(message: try message(), at: try actionTime())
        case "popupPaused":
            let until = try integer("until")
            guard (0...DocumentCodec.latestTime).contains(until) else { throw NativeMessageError(root.key("until"), "time \(until) is out of range") }
            return .popupPaused(until: until)
        case "nativeReplyArrived":
            let request = Int(try integer("request"))
            switch (members["reply"], members["rejected"]) {
            case (let reply?, nil): return .nativeReplyArrived(request: request, NativeOutcome(reading: reply))
            case (nil, nil): return .nativeReplyArrived(request: request, .empty)
            case (nil, .string(let reason)?):
                guard let rejection = NativeRejection(rawValue: reason) else {
                    throw NativeMessageError(root.key("rejected"), "expected \(NativeRejection.allCases.map(\.rawValue).joined(separator: " or "))")
                }
                return .nativeReplyArrived(request: request, .rejected(rejection))
            default: throw NativeMessageError(root, "expected either 'reply' or 'rejected' (a string), or neither")
            }
        case "timerFired":
            let timer = try WireObject(members["timer"] ?? .null, at: root.key("timer"))
            return .timerFired(try Self.timer(timer))
        case "alarmsChanged": return .alarmsChanged(alarms: try Self.alarms(members["alarms"] ?? .null, at: root.key("alarms")))
        case "menusChanged":
            guard case .array(let items)? = members["items"] else { throw NativeMessageError(root.key("items"), "expected an array of menu items") }
            var menus: [ExtensionMenuItem] = []
            for (index, item) in items.enumerated() { menus.append(try ExtensionMenuItem.decode(item, at: root.key("items").index(index))) }
            return .menusChanged(items: menus)
        case "alarmFired":
            guard let name = members["name"] else { return .alarmFired(name: "") }
            guard case .string(let text) = name else { throw NativeMessageError(root.key("name"), "expected a string") }
            return .alarmFired(name: text)
        case "pageMessage":
            guard let message = members["message"] else { throw NativeMessageError(root.key("message"), "expected a value") }
            let from: PageSender = members["popup"] == .bool(true) ? .popup : .tab(try tab(), url: try string("url"))
            let active = members["active"] == nil ? nil : TabID(try string("active"))
            return .pageMessage(id: Int(clamping: try integer("id")), from: from, message: message, active: active, userGesture: try optionalBool("userGesture") ?? false)
        case "pageAnswered": return .pageAnswered(id: Int(clamping: try integer("id")), answer: members["answer"], unreachable: bool("unreachable"))
        case "portOpened":
            let from: PageSender = members["popup"] == .bool(true) ? .popup : .tab(try tab(), url: try string("url"))
            return .portOpened(port: Int(clamping: try integer("port")), name: try string("name"), from: from)
        case "portMessage":
            guard let message = members["message"] else { throw NativeMessageError(root.key("message"), "expected a value") }
            return .portMessage(port: Int(clamping: try integer("port")), message: message)
        case "portClosed": return .portClosed(port: Int(clamping: try integer("port")), error: try optionalString("error"))
        case "tabCreated": return .tabCreated(TabID(try string("tab")), url: try string("url"))
        case "webNavigation":
            guard let stage = NavigationStage(rawValue: try string("stage")) else {
                throw NativeMessageError(root.key("stage"), "expected \(NavigationStage.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return .navigated(try tab(), url: try string("url"), stage: stage)
        case "actionClicked": return .actionClicked(try tab(), url: try string("url"))
        case "permissionsChanged":
            let change = try string("change")
            guard ["added", "removed"].contains(change) else { throw NativeMessageError(root.key("change"), "expected added or removed") }
            return .permissionsChanged(added: change == "added", permissions: try object.strings("permissions"), origins: try object.strings("origins"))
        case "commandPressed":
            return .commandPressed(name: try string("name"), tab: try optionalString("tab").map { TabID($0) }, url: try optionalString("url"))
        case "menuClicked":
            func identifier(_ name: String) throws(NativeMessageError) -> JSONValue? { try ExtensionMenuItem.identifier(members[name], at: root.key(name)) }
            guard let id = try identifier("id") else { throw NativeMessageError(root.key("id"), "expected a string or an integer") }
            return .menuClicked(id: id, parentId: try identifier("parentId"), tab: try tab(), url: try string("url"), checked: try optionalBool("checked"),
                                wasChecked: try optionalBool("wasChecked"))
        case "tabsAnswered":
            return .tabsAnswered(request: Int(clamping: try integer("request")), tab: try optionalString("tab").map { TabID($0) }, url: try optionalString("url"),
                                 error: try optionalString("error"), results: members["results"], granted: try optionalBool("granted"))
        case "tabUpdated":
            guard let status = TabStatus(rawValue: try string("status")) else { throw NativeMessageError(root.key("status"), "expected loading or complete") }
            let urlChanged: Bool
            switch members["urlChanged"] {
            case nil: urlChanged = false
            case .bool(let value)?: urlChanged = value
            case _?: throw NativeMessageError(root.key("urlChanged"), "expected a boolean")
            }
            return .tabUpdated(TabID(try string("tab")), url: try string("url"), status: status, urlChanged: urlChanged)
        case "storageChanged":
            return .storageChanged(area: try storageArea(string("area"), at: root.key("area")), changes: try changes(members["changes"] ?? .null, at: root.key("changes")))
        default: throw NativeMessageError(root.key("type"), "unknown input '\(type.prefix(64))'")
        }
    }

    /// What the process does with an event that arrived at `now`: hand it to the machine, or
    /// complete a storage operation. A chosen scope is read into its canonical form (an invalid
    /// one is an error at `scope`), reset fields sorted.
    public static func input(for event: Event, now: EpochMillis) throws(NativeMessageError) -> ExtensionInput {
        switch event {
        case .started(let appearance, let offset, let tabs, let appMessages, _, _, _, _, _, _):
            return .machine(.started(now: now, appearance: appearance, utcOffsetMinutes: offset, tabs: tabs, appMessages: appMessages))
        case .storageCompleted(let token): return .storageCompleted(token: token)
        case .tabRequestedDecision(let tab, let url, let nativeDark): return .machine(.tabRequestedDecision(tab, url: url, nativeDark: nativeDark, now: now))
        case .tabNativeDarkChanged(let tab, let nativeDark): return .machine(.tabNativeDarkChanged(tab, nativeDark: nativeDark, now: now))
        case .tabActivated(let tab): return .machine(.tabActivated(tab, now: now))
        case .tabClosed(let tab): return .machine(.tabClosed(tab, now: now))
        case .safariCameToForeground: return .machine(.safariCameToForeground(now: now))
        case .appMessageArrived: return .machine(.appMessageArrived(now: now))
        case .appearanceChanged(let appearance): return .machine(.appearanceChanged(appearance, now: now))
        case .popupOpened(let tab): return .machine(.popupOpened(tab, now: now))
        case .popupClosed: return .machine(.popupClosed(now: now))
        case .popupChoseScope(let text):
            let scope: ScopeKey
            do { scope = try ScopeKey.parse(text) } catch { throw NativeMessageError(JSONPath.root.key("scope"), error.description) }
            return .machine(.popupChoseScope(scope, now: now))
        case .popupEdited(let set, let reset, let message, let at):
            return .machine(.popupEdited(set: set, reset: reset.sorted(), message: message, at: at, now: now))
        case .popupForgotSite(let message, let at): return .machine(.popupForgotSite(message: message, at: at, now: now))
        case .popupPaused(let until): return .machine(.popupPaused(until: until, now: now))
        case .nativeReplyArrived(let request, let outcome): return .machine(.nativeReplyArrived(request: request, outcome, now: now))
        case .timerFired(let timer): return .machine(.timerFired(timer, now: now))
        case .alarmFired: return .machine(.alarmFired(now: now))
        // The built-in background sets its one alarm afresh each time: Safari's list is not its.
        case .alarmsChanged: return .ignored
        // It makes no menu items, and no page of its own runs.
        case .menusChanged: return .ignored
        // It listens for neither: Safari never sends them to it.
        case .tabCreated, .tabUpdated, .tabsAnswered, .safariWentToBackground, .menuClicked, .commandPressed, .actionClicked, .navigated, .permissionsChanged:
            return .ignored
        case .pageMessage, .pageAnswered, .portOpened, .portMessage, .portClosed, .storageChanged:
            // Safari sends these only to an extension whose own pages run: never to this background.
            throw NativeMessageError(JSONPath.root.key("type"), "the built-in background has no pages of its own: it takes no '\(name(event))'")
        }
    }
}
