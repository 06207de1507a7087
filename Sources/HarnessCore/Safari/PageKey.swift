import ProcessKit

/// A tab's page of the extension's own, as Safari and the page host name it: the tab, in its
/// profile. Tab names are each profile's own and a profile put away keeps its pages, so on the
/// wire the default profile's page is named by its tab (`t1`) and another's as `PROFILE/TAB`
/// (`work/t1`).
package struct PageKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    var profile: String
    var tab: TabID

    package init(_ tab: TabID, profile: String = SafariMachine.defaultProfile) {
        self.tab = tab
        self.profile = profile
    }

    /// A page as the wire names it.
    init(name: String) {
        if let slash = name.firstIndex(of: "/") {
            self.init(TabID(String(name[name.index(after: slash)...])), profile: String(name[..<slash]))
        } else {
            self.init(TabID(name))
        }
    }

    /// As the wire and the trace name it.
    var name: String { profile == SafariMachine.defaultProfile ? tab.rawValue : profile + "/" + tab.rawValue }
    package var description: String { name }

    /// In the order of their names.
    package static func < (a: Self, b: Self) -> Bool { a.name < b.name }
}

/// One load of one of the extension's pages, as the page host numbers its loads (`tab t1#2`,
/// `tab work/t1#3`, `popup#1`): a page's timers belong to the load that set them, and die with it.
package struct PageLoad: Hashable, Comparable, Sendable, CustomStringConvertible {
    var page: PageHost.Page
    var number: Int

    init(_ page: PageHost.Page, number: Int) {
        self.page = page
        self.number = number
    }

    /// A load as the wire names it; nil for a name that is not one.
    init?(name: String) {
        guard let hash = name.lastIndex(of: "#"), let number = Int(name[name.index(after: hash)...]),
              let page = PageHost.Page(hostName: String(name[..<hash])) else { return nil }
        self.init(page, number: number)
    }

    var name: String { "\(page.hostName)#\(number)" }
    package var description: String { name }

    /// In the order of their names.
    package static func < (a: Self, b: Self) -> Bool { a.name < b.name }
}

extension PageHost.Page {
    /// As the page host names the page in its console and its loads: `tab KEY`, or `popup`.
    var hostName: String {
        switch self {
        case .tab(let key): "tab \(key.name)"
        case .popup: "popup"
        }
    }

    /// A page as the page host names it; nil for a name that is not one.
    init?(hostName: String) {
        if hostName == "popup" {
            self = .popup
        } else if hostName.hasPrefix("tab "), hostName.count > 4 {
            self = .tab(PageKey(name: String(hostName.dropFirst(4))))
        } else {
            return nil
        }
    }
}
