import Glibc
import ProcessKit
import SiteSettings
import Synchronization

/// The user in Safari, and the first version's extension: popup changes on sites the app edits
/// too and on sites only the popup edits, pages asking for decisions, tab activations, Safari
/// coming to the front, and the old `getEnabled`/`toggleEnabled` messages, which start native
/// handlers of their own beside the background's.
struct SoakUser {
    let context: SoakContext
    let safari: SoakShell
    let handlers: SoakHandlers

    func run(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let tabs = SoakWorld.tabs.keys.sorted()
        let popupTabs = tabs.filter { id in
            (SoakWorld.sharedSites + SoakWorld.popupSites).contains { SoakWorld.tabs[id] == "https://\($0)/" }
        }
        while !context.timeIsUp {
            usleep(UInt32(2_000 + random.below(30_000)))
            switch random.below(100) {
            case 0..<35:
                let tab = popupTabs[random.below(popupTabs.count)]
                if random.chance(1, in: 12) {
                    safari.mailbox.post(.popupEdit(tab: tab, set: SiteValues(), reset: [], forget: true, values: SoakWorld.deletion))
                } else {
                    let change = SoakWorld.siteChange(&random)
                    safari.mailbox.post(.popupEdit(tab: tab, set: change.set, reset: change.reset, forget: false, values: change.values))
                }
            case 35..<60:
                let tab = tabs[random.below(tabs.count)]
                context.log.operation("tab request", "tab \(tab.rawValue) loads")
                safari.mailbox.post(.safari(.tabReloaded(tab)))
            case 60..<70:
                let tab = tabs[random.below(tabs.count)]
                context.log.operation("tab activation", "tab \(tab.rawValue) activated")
                safari.mailbox.post(.safari(.tabActivated(tab)))
            case 70..<78:
                context.log.operation("safari foreground", "Safari comes to the front")
                safari.mailbox.post(.safari(.safariCameToForeground))
            case 78..<90:
                if handlers.outstanding < 64 { getEnabled() }
            default:
                if handlers.outstanding < 64 { toggle() }
            }
        }
    }

    private func getEnabled() {
        handlers.submit(SoakHandlers.Request(message: .getEnabled, stampsAnEdit: false, sending: { _ in }) { _, _ in })
    }

    /// The old popup's switch: stamped with the time its handler takes it, known by its answer.
    private func toggle() {
        let number = Mutex<Int?>(nil)
        let context = self.context
        let request = SoakHandlers.Request(message: .toggleEnabled, stampsAnEdit: true, sending: { at in
            number.withLock { $0 = context.edits.record(.popup, at: at, .toggle) }
        }) { reply, _ in
            guard let edit = number.withLock({ $0 }), case .enabled(let enabled)? = reply else { return }
            context.edits.toggled(edit, enabled: enabled)
        }
        handlers.submit(request)
    }
}
