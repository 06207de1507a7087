import ProcessKit
import SiteSettings

extension SafariMachine {
    /// The user presses the keys of the extension's command `name`, in Safari (which comes to the
    /// front first): `commands.onCommand` fires with the front window's active tab, and wakes a
    /// background that listens for it (`WebExtensionContext::fireCommandEventIfNeeded` ->
    /// `wakeUpBackgroundContentIfNecessaryToFireEvents`).
    mutating func pressCommand(_ name: String, now: EpochMillis, _ effects: inout [Effect]) {
        guard commandNames.contains(name) else {
            effects.append(.note("the extension has no command \(name)"))
            return
        }
        bringSafariToTheFront(to: "press its keys", now: now, &effects)
        let tab = activeTab
        effects.append(.dispatch(.commandPressed(name: name, tab: tab, url: tab.flatMap { tabs[$0]?.url })))
        // The extension's own pages that listen hear it too (WebKit sends it to every process).
        if runsOwnPages { effects.append(.pagesCommandPressed(name, tab: tab, profile: profile)) }
    }

    /// The user clicks the extension's toolbar item over the tab (WebKit's
    /// `WebExtensionContext::performAction`): nothing happens where the extension disabled it;
    /// where it has a popup there, the popup opens; else `action.onClicked` fires with the tab,
    /// and wakes a background that listens for it (`fireActionClickedEventIfNeeded` ->
    /// `wakeUpBackgroundContentIfNecessaryToFireEvents`). The click is in Safari, in front, over
    /// the tab shown.
    mutating func clickAction(over id: TabID, now: EpochMillis, _ effects: inout [Effect]) {
        guard let url = tabs[id]?.url else {
            effects.append(.note("tab \(id.rawValue) is not open: no toolbar item is clicked over it"))
            return
        }
        if (action.value(.enabled, tab: id) ?? actionDefaults[.enabled]) == .bool(false) {
            effects.append(.note("the toolbar item is disabled over tab \(id.rawValue): clicking it does nothing"))
            return
        }
        // An extension's own pages with no popup anywhere have none to open; the design's popup
        // is the harness's own.
        if actionPopup(over: id).map({ !$0.isEmpty }) ?? !runsOwnPages {
            showPopup(over: id, now: now, &effects)
            return
        }
        bringSafariToTheFront(to: "click the toolbar item", now: now, &effects)
        showTab(id, for: "click the toolbar item", now: now, &effects)
        effects.append(.dispatch(.actionClicked(id, url: url)))
        // The extension's own pages that listen hear it too (WebKit sends it to every process).
        if runsOwnPages { effects.append(.pagesActionClicked(id, profile: profile)) }
    }

    /// The popup the toolbar item opens over the tab: the extension's for the tab, else for
    /// every tab (`setPopup`), else the manifest's; "" for none, nil where neither says.
    func actionPopup(over id: TabID) -> String? {
        guard case .string(let page)? = action.value(.popup, tab: id) ?? actionDefaults[.popup] else { return nil }
        return page
    }

    /// The toolbar item opens the popup over the front window's active tab, in Safari in front:
    /// the user brings Safari to the front and shows this tab first.
    mutating func showPopup(over id: TabID, now: EpochMillis, _ effects: inout [Effect]) {
        bringSafariToTheFront(to: "open the popup", now: now, &effects)
        showTab(id, for: "open the popup", now: now, &effects)
        openPopup = OpenPopup(tab: id)
        if runsOwnPages {
            // A popup open already loads afresh, with the page the extension set, if it set one.
            pageGone(.popup, &effects)
            let page = actionPopup(over: id)
            effects.append(.openPopupPage(id, page: page.map(JSONValue.string) == actionDefaults[.popup] ? nil : page))
            return
        }
        effects.append(.dispatch(.popupOpened(id)))
    }

    /// The user shows the tab (its window in front, the tab active there) to act over it.
    private mutating func showTab(_ id: TabID, for gesture: String, now: EpochMillis, _ effects: inout [Effect]) {
        guard let tab = tabs[id], activeTabs[tab.window] != id || frontWindow != tab.window else { return }
        effects.append(.note("the user shows tab \(id.rawValue) to \(gesture) over it"))
        activateTab(id, now: now, &effects)
    }

    /// The user chooses the extension's menu item `name` on a tab's page: Safari shows only the
    /// items of a page's menu that are visible (and under visible, enabled parents), lets the
    /// user choose only an enabled one, checks a checkbox item or unchecks it and checks a radio
    /// item (unchecking the radio items beside it), and fires `menus.onClicked`, which wakes a
    /// background that listens for it (`WebExtensionContext::fireMenusClickedEventIfNeeded` ->
    /// `wakeUpBackgroundContentIfNecessaryToFireEvents`).
    mutating func chooseMenuItem(_ name: String, in tab: TabID, _ effects: inout [Effect]) {
        guard let url = tabs[tab]?.url else {
            effects.append(.note("tab \(tab.rawValue) is not open: no menu item is chosen"))
            return
        }
        guard let index = menus.firstIndex(where: { $0.name == name }) else {
            let made = menus.map(\.name)
            effects.append(.note("the page's menu has no item \(name) (the extension made \(made.isEmpty ? "none" : made.joined(separator: ", ")))"))
            return
        }
        var shown = menus[index].inPageMenu, enabled = menus[index].enabled
        var parent = menus[index].parentId
        var passed: Set<String> = [name]
        // (Each item once: a list whose parents loop is walked no further.)
        while let id = parent, passed.insert(ExtensionMenuItem.name(id)).inserted, let above = menus.first(where: { $0.id == id }) {
            shown = shown && above.visible
            enabled = enabled && above.enabled
            parent = above.parentId
        }
        guard shown else {
            effects.append(.note("menu item \(name) is not in a page's menu (hidden, a separator, or for other contexts: \(menus[index].contexts.joined(separator: ", ")))"))
            return
        }
        guard enabled else {
            effects.append(.note("menu item \(name) is disabled: choosing it does nothing"))
            return
        }
        let item = menus[index]
        var checked: Bool?, wasChecked: Bool?
        switch item.type {
        case "checkbox":
            (wasChecked, checked) = (item.checked, !item.checked)
        case "radio":
            (wasChecked, checked) = (item.checked, true)
            for other in menus.indices where menus[other].type == "radio" && menus[other].parentId == item.parentId { menus[other].checked = false }
        default: break
        }
        if let checked { menus[index].checked = checked }
        let clicked = ExtensionWire.Event.menuClicked(id: item.id, parentId: item.parentId, tab: tab, url: url, checked: checked, wasChecked: wasChecked)
        effects.append(.dispatch(clicked))
        // The extension's own pages that listen hear it too (WebKit sends it to every process).
        if runsOwnPages { effects.append(.pagesMenuClicked(clicked, profile: profile)) }
    }
}

/// A change an extension page made to the menu items (`menus.create`, `update`, `remove`,
/// `removeAll`), which Safari makes in the list it holds, one call at a time as WebKit does:
/// pages and the background may change the list in the same step, and neither overwrites the
/// other's items. A change the list no longer allows (an item made twice, one gone) is refused.
package enum MenuChange: Equatable, Sendable {
    case create(ExtensionMenuItem)
    case update(ExtensionMenuItem)
    case remove(JSONValue)
    case removeAll

    /// `items` with the change made, or why it cannot be.
    package func applied(to items: [ExtensionMenuItem]) -> Result<[ExtensionMenuItem], Refusal> {
        switch self {
        case .create(let item):
            guard !items.contains(where: { $0.id == item.id }) else { return .failure(Refusal("an item \(item.name) is there already")) }
            return .success(items + [item])
        case .update(let item):
            guard let at = items.firstIndex(where: { $0.id == item.id }) else { return .failure(Refusal("no item \(item.name) is there")) }
            var changed = items
            changed[at] = item
            return .success(changed)
        case .remove(let id):
            guard items.contains(where: { $0.id == id }) else { return .failure(Refusal("no item \(ExtensionMenuItem.name(id)) is there")) }
            // An item goes with the items under it.
            var gone: Set<String> = [ExtensionMenuItem.name(id)]
            var grew = true
            while grew {
                grew = false
                for item in items where item.parentId.map({ gone.contains(ExtensionMenuItem.name($0)) }) == true && gone.insert(item.name).inserted { grew = true }
            }
            return .success(items.filter { !gone.contains($0.name) })
        case .removeAll: return .success([])
        }
    }

    package struct Refusal: Error, Equatable {
        package let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The change as the trace says it.
    package var said: String {
        switch self {
        case .create(let item): "makes the menu item \(item.name)"
        case .update(let item): "changes the menu item \(item.name)"
        case .remove(let id): "removes the menu item \(ExtensionMenuItem.name(id))"
        case .removeAll: "removes every menu item"
        }
    }
}
