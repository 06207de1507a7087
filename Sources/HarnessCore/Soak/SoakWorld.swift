import ProcessKit
import SiteSettings

/// The sites, tabs and values a soak's user works with, chosen from the seed: sites both
/// editors change, sites only the popup changes, sites only the app changes, and a tab on each.
/// Modes are on, off and auto only: a schedule or a pause would make a decision depend on the
/// moment it is checked.
enum SoakWorld {
    static let sharedSites = ["a.example", "b.example"]
    static let popupSites = ["p.example", "q.example"]
    static let appSites = ["c.example", "d.example"]

    /// One tab per site, named after it.
    static let tabs: [TabID: String] = Dictionary(uniqueKeysWithValues: (sharedSites + popupSites + appSites).map {
        (TabID("t-" + $0.prefix { $0 != "." }), "https://\($0)/")
    })

    static let modes: [Mode] = [.on, .off, .auto]
    static let themes: [Theme] = [.dark, .gray, .sepia, .invert]
    static let policies: [NativeDarkPolicy] = [.respect, .override]

    /// One or two fields set, or one reset; as values for the oracle too (nil: reset).
    static func siteChange(_ random: inout SeededRandom) -> (set: SiteValues, reset: [SiteField], values: [String: String?]) {
        if random.chance(1, in: 5) {
            let field = SiteField.allCases[random.below(SiteField.allCases.count)]
            return (SiteValues(), [field], [field.rawValue: String?.none])
        }
        var set = SiteValues()
        var values: [String: String?] = [:]
        let count = 1 + random.below(2)
        for _ in 0..<count {
            switch random.below(3) {
            case 0:
                set.mode = modes[random.below(modes.count)]
                values["mode"] = set.mode!.rawValue
            case 1:
                set.theme = themes[random.below(themes.count)]
                values["theme"] = set.theme!.rawValue
            default:
                set.nativeDarkPolicy = policies[random.below(policies.count)]
                values["nativeDarkPolicy"] = set.nativeDarkPolicy!.rawValue
            }
        }
        return (set, [], values)
    }

    /// A default theme or mode.
    static func defaultsChange(_ random: inout SeededRandom) -> (DefaultsValues, [String: String?]) {
        if random.chance(1, in: 2) {
            let mode = modes[random.below(modes.count)]
            return (DefaultsValues(mode: mode), ["mode": mode.rawValue])
        }
        let theme = themes[random.below(themes.count)]
        return (DefaultsValues(theme: theme), ["theme": theme.rawValue])
    }

    /// Every field of a site cleared: "delete this site".
    static let deletion: [String: String?] = Dictionary(uniqueKeysWithValues: SiteField.allCases.map { ($0.rawValue, String?.none) })

    /// The records a popup change on `url` may go to.
    static func scopes(of url: String) -> [String] {
        ((try? PageAddress.parse(url).get())?.scopeKeys() ?? []).map(\.text)
    }
}
