@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// What Safari shows and what freezes the background, as a value.
struct SafariModelTests {
    private func model(_ platform: Simulation.Platform) -> SafariModel { SafariModel(platform: platform, profile: "default") }

    /// A decision, told apart by the appearance it was made in.
    private func decision(_ appearance: Appearance) -> Decision {
        Resolver(document: SettingsDocument()).decide(url: "https://a.example/",
                                                      context: DecisionContext(appearance: appearance, now: 0, utcOffsetMinutes: 0, pausedUntil: nil, pageIsNativelyDark: false))
    }

    private var view: PopupView {
        PopupView(tab: TabID("a"), url: "https://a.example/", unsupported: false, scopes: [], selectedScope: nil, settings: nil, pausedUntil: nil)
    }

    @Test func onIOSOnlyTheFrontTabIsVisibleAndEveryTabIsInOneWindow() {
        var safari = model(.iOS)
        safari.open(TabID("a"), url: "https://a.example/", nativeDark: false, window: 3, repliesDelivered: 0)
        safari.open(TabID("b"), url: "https://b.example/", nativeDark: false, window: 2, repliesDelivered: 0)
        #expect(safari.visibleTabs == [TabID("b")])
        #expect(safari.tabs[TabID("a")]?.window == 1)
        safari.activate(TabID("a"))
        #expect(safari.visibleTabs == [TabID("a")])
    }

    @Test func onMacOSTheActiveTabOfEveryWindowIsVisible() {
        var safari = model(.macOS)
        safari.open(TabID("a"), url: "https://a.example/", nativeDark: false, window: 1, repliesDelivered: 0)
        safari.open(TabID("b"), url: "https://b.example/", nativeDark: false, window: 2, repliesDelivered: 0)
        safari.open(TabID("c"), url: "https://c.example/", nativeDark: false, window: 2, repliesDelivered: 0)
        #expect(safari.visibleTabs == [TabID("a"), TabID("c")])
        _ = safari.close(TabID("c"))
        #expect(safari.visibleTabs == [TabID("a"), TabID("b")], "the window shows its other tab")
    }

    @Test func iOSFreezesTheBackgroundWhileSafariIsAwayAndMacOSOnlyWhenTheUserDoes() {
        var ios = model(.iOS), mac = model(.macOS)
        ios.safariInForeground = false
        mac.safariInForeground = false
        #expect(ios.isBackgroundFrozen && !mac.isBackgroundFrozen)
        mac.backgroundFrozenByUser = true
        #expect(mac.isBackgroundFrozen)
    }

    @Test func aProfileSwitchPutsTabsAndAlarmAwayAndBringsTheOthersBack() {
        var safari = model(.iOS)
        safari.open(TabID("a"), url: "https://a.example/", nativeDark: false, window: nil, repliesDelivered: 0)
        safari.openPopup(on: TabID("a"))
        safari.popup = view
        #expect(safari.switchProfile(to: "work", alarm: 42) == nil)
        #expect(safari.tabs.isEmpty && safari.popupTab == nil && safari.popup == nil)
        #expect(safari.profiles == ["default", "work"])
        safari.open(TabID("w"), url: "https://w.example/", nativeDark: false, window: nil, repliesDelivered: 0)
        #expect(safari.switchProfile(to: "default", alarm: nil) == 42)
        #expect(safari.visibleTabs == [TabID("a")])
    }

    @Test func theFirstDecisionSinceALoadIsKeptWithTheRepliesBeforeIt() {
        var safari = model(.iOS)
        safari.open(TabID("a"), url: "https://a.example/", nativeDark: false, window: nil, repliesDelivered: 2)
        safari.apply(decision(.light), to: TabID("a"), now: 10, repliesDelivered: 3)
        safari.apply(decision(.dark), to: TabID("a"), now: 20, repliesDelivered: 5)
        #expect(safari.tabs[TabID("a")]?.firstDecision == decision(.light))
        #expect(safari.tabs[TabID("a")]?.nativeRepliesBeforeFirstDecision == 1)
        #expect(safari.tabs[TabID("a")]?.applied == decision(.dark))
        #expect(decision(.light) != decision(.dark))
        safari.reload(TabID("a"), repliesDelivered: 5)
        #expect(safari.tabs[TabID("a")]?.applied == nil && safari.tabs[TabID("a")]?.firstDecision == nil)
    }

    @Test func closingThePopupKeepsWhatItShowedLastButLosingItDoesNot() {
        var safari = model(.iOS)
        safari.openPopup(on: TabID("a"))
        safari.popup = view
        safari.closePopup()
        #expect(safari.popupTab == nil && safari.popup != nil)
        safari.forgetPopup()
        #expect(safari.popup == nil)
    }
}
