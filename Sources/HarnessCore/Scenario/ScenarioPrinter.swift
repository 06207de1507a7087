import ProcessKit
import SiteSettings

/// Writes steps back as scenario text, one line each, so that parsing the text gives the same
/// steps. Generated and shrunk schedules are written this way.
package enum ScenarioPrinter {
    /// The whole file: the description as the first comment block, then a line per step.
    package static func print(_ steps: [Step], description: [String] = []) -> String {
        var text = description.map { $0.isEmpty ? "#" : "# " + $0 }.joined(separator: "\n")
        if !text.isEmpty { text += "\n" }
        for step in steps { text += line(step) + "\n" }
        return text
    }

    /// One step as its line.
    static func line(_ step: Step) -> String {
        switch step {
        case .platform(let platform): "platform \(platform.rawValue)"
        case .epoch(let time): "epoch \(Timestamp.format(time))"
        case .seed(let seed): "seed \(seed)"
        case .shared(let document): "shared " + starting(document)
        case .cache(let document): "cache " + starting(document)
        case .sharedLegacy(let enabled): "shared legacy \(enabled ? "enabled" : "disabled")"
        case .sharedDamaged: "shared damaged"
        case .profile(let name): "profile \(name)"
        case .alarmMinimum(let minimum): "alarm-minimum \(duration(minimum))"
        case .backgroundLoadTime(let time): "background-load-time \(duration(time))"
        case .freshInstall: "fresh-install"
        case .handlerReuse: "handler reuse"
        case .handlerFresh: "handler fresh"
        case .handlerSource(let path): "handler source \(path)"
        case .probe(let folder): "probe" + (folder.map { " " + $0 } ?? "")
        case .groupDefaults(let suite, let key, let value): "group defaults \(suite)" + (key.map { " " + word($0) } ?? "") + (value.map { " " + json($0) } ?? "")
        case .extensionFolder(let folder, let pages): "extension \(folder)\(pages ? " pages" : "")"
        case .fetchStub(let url, let status, .text(let body)): "fetch \(url) \(status)\(body.isEmpty ? "" : " " + body)"
        case .fetchStub(let url, let status, .file(let path)): "fetch \(url) \(status) file \(path)"
        case .expectFailure(let number): "expect-failure invariant \(number)"
        case .watchdog(let milliseconds): "watchdog \(duration(EpochMillis(milliseconds)))"
        case .heapLimit(let mebibytes): "heap-limit \(mebibytes)MiB"
        case .app(let app): "app " + self.app(app)
        case .safari(let step): "safari \(step.text)"
        case .tab(let tab): "tab " + self.tab(tab)
        case .popup(let popup): "popup " + self.popup(popup)
        case .appearance(let appearance): "appearance \(appearance.rawValue)"
        case .background(let step): "background \(step.rawValue)"
        case .handler(let behaviour): "handler " + handler(behaviour)
        case .hold(let process, let point): "hold \(process.rawValue) at \(point.rawValue)"
        case .release(let process): "release \(process.rawValue)"
        case .crash(let process, let point): "crash \(process.rawValue) at \(point.rawValue)"
        case .fail(let process, let point, let errno, let after):
            "fail \(process.rawValue) at \(point.rawValue) with \(errno.rawValue)" + (after ? " after" : "")
        case .legacy(let step): "legacy \(step.rawValue)"
        case .menuClick(let id, let tab): "menu click \(word(id)) \(tab.rawValue)"
        case .command(let name): "command \(word(name))"
        case .actionClick(let tab): "action click \(tab.rawValue)"
        case .optionsOpen: "options open"
        case .permission(let granted): "permission \(granted ? "grant" : "refuse")"
        case .permissionRevoke(let item): "permission revoke \(word(item))"
        case .advance(let duration): "advance \(self.duration(duration))"
        case .deviceSleep(let duration): "device sleep \(self.duration(duration))"
        case .settle: "settle"
        case .expect(let expectation, let within, let fails): (fails ? "expect-failure " : "expect ") + expect(expectation) + (within.map { " within \(duration($0))" } ?? "")
        }
    }

    /// A key as one word: itself when it reads back so, else a JSON string.
    private static func word(_ key: String) -> String {
        let plain = !key.isEmpty && !key.contains(where: { $0 == " " || $0 == "\t" || $0.isNewline }) && !"\"{[#".contains(key.first!)
        return plain ? key : json(.string(key))
    }

    private static func json(_ value: JSONValue) -> String { String(decoding: JSONWriter.compact(value), as: UTF8.self) }

    private static func valueCheck(_ check: ValueCheck) -> String {
        switch check {
        case .equals(let value): json(value)
        case .absent: "absent"
        case .includes(let value): "includes " + json(value)
        }
    }

    /// `30s`, `500ms`, `2m`, `1h`: the largest unit that writes it whole.
    static func duration(_ millis: EpochMillis) -> String {
        if millis == 0 { return "0s" }
        for (unit, scale) in ScenarioParser.durationUnits where millis % scale == 0 && millis / scale < 10_000_000 {
            return "\(millis / scale)\(unit)"
        }
        return "\(millis)ms"
    }

    private static func starting(_ document: StartingDocument) -> String {
        switch document {
        case .defaults(let values): "defaults " + values.words
        case .site(let key, let values): "site \(key.text) " + values.words
        case .file(let path): "file \(path)"
        }
    }

    private static func app(_ step: AppStep) -> String {
        switch step {
        case .launch: "launch"
        case .foreground: "foreground"
        case .background: "background"
        case .kill: "kill"
        case .setDefaults(let values): "set default " + values.words
        case .setSite(let key, let values): "set site \(key.text) " + values.words
        case .resetSite(let key, let fields): "reset site \(key.text) " + fields.map(\.rawValue).joined(separator: " ")
        case .deleteSite(let key): "delete site \(key.text)"
        case .setGroup(let suite, let key, let value): "set group \(suite) \(word(key)) \(json(value))"
        case .resetGroup(let suite, let key): "reset group \(suite) \(word(key))"
        case .dispatch(let name, let userInfo): "dispatch \(name) \(json(userInfo))"
        }
    }

    private static func tab(_ step: TabStep) -> String {
        switch step {
        case .open(let id, let url, let nativeDark, let window, let html):
            "open \(id.rawValue) \(url)" + (nativeDark ? " native-dark" : "") + (window.map { " window=\($0)" } ?? "") + (html.map { " html=\($0)" } ?? "")
        case .activate(let id): "activate \(id.rawValue)"
        case .reload(let id): "reload \(id.rawValue)"
        case .navigate(let id, let url, let html): "navigate \(id.rawValue) \(url)" + (html.map { " html=\($0)" } ?? "")
        case .close(let id): "close \(id.rawValue)"
        case .nativeDark(let id, let on): "native-dark \(id.rawValue) \(on ? "on" : "off")"
        case .click(let id, let element): "click \(id.rawValue) \(element)"
        case .choose(let id, let element, let value): "choose \(id.rawValue) \(element) \(value.isEmpty ? "\"\"" : value)"
        }
    }

    private static func popup(_ step: PopupStep) -> String {
        switch step {
        case .open(let id): "open \(id.rawValue)"
        case .scope(let key): "scope \(key.text)"
        case .set(let values): "set " + values.words
        case .reset(let fields): "reset " + fields.map(\.rawValue).joined(separator: " ")
        case .forget: "forget"
        case .pause(let duration): "pause \(self.duration(duration))"
        case .close: "close"
        case .click(let id): "click \(id)"
        case .choose(let id, let value): "choose \(id) \(value.isEmpty ? "\"\"" : value)"
        }
    }

    private static func handler(_ behaviour: Simulation.HandlerBehaviour) -> String {
        switch behaviour {
        case .healthy: "healthy"
        case .slow(let delay): "slow \(duration(delay))"
        case .hung: "hung"
        case .crashing(let afterWrite): "crashing \(afterWrite ? "after-write" : "before-write")"
        case .garbage: "garbage"
        }
    }

    private static func expect(_ expectation: Expectation) -> String {
        switch expectation {
        case .tab(let id, let checks): "tab \(id.rawValue) " + self.checks(checks)
        case .tabUndecided(let id): "tab \(id.rawValue) undecided"
        case .page(let id, let check): "tab \(id.rawValue) page \(check.text)"
        case .groupDefault(let suite, let key, let check): "group defaults \(suite) \(word(key)) " + valueCheck(check)
        case .storage(let area, let key, let check): "storage \(area.rawValue) \(word(key)) " + valueCheck(check)
        case .element(.tab(let id), let selector, let check): "tab \(id.rawValue) page \(json(.string(selector))) \(check.text)"
        case .element(.popup, let selector, let check): "popup page \(json(.string(selector))) \(check.text)"
        case .console(.background, let text): "console background contains \(json(.string(text)))"
        case .console(.tab(let id), let text): "console tab \(id.rawValue) contains \(json(.string(text)))"
        case .console(.popup, let text): "console popup contains \(json(.string(text)))"
        case .action(let tab, let checks):
            (["action"] + (tab.map { ["tab", $0.rawValue] } ?? []) + checks.map { "\($0.word)=\(json($0.value))" }).joined(separator: " ")
        case .firstDecision(let id, let checks): "first-decision \(id.rawValue) " + self.checks(checks)
        case .firstDecisionBeforeNativeReply(let id): "first-decision \(id.rawValue) before native-reply"
        case .sharedDefaults(let values): "shared defaults " + values.words
        case .sharedSite(let key, let checks): "shared site \(key.text) " + fieldChecks(checks)
        case .sharedSiteAbsent(let key): "shared site \(key.text) absent"
        case .sharedTombstone(let key): "shared tombstone \(key.text)"
        case .sharedDamaged(let count): "shared damaged \(count)"
        case .appSites(let keys): "app sites " + (keys.isEmpty ? "none" : keys.map(\.text).joined(separator: ","))
        case .appSite(let key, let checks): "app site \(key.text) " + fieldChecks(checks)
        case .appDefaults(let values): "app defaults " + values.words
        case .appAnswer(let answer): "app answer \(answer.rawValue)"
        case .popup(let checks): "popup " + self.checks(checks)
        case .popupOver(let id): id.map { "popup open \($0.rawValue)" } ?? "popup closed"
        case .background(let state, let incarnation):
            "background" + (state.map { " \($0.rawValue)" } ?? "") + (incarnation.map { " incarnation=\($0)" } ?? "")
        case .alarm(.none): "alarm none"
        case .alarm(.due): "alarm due"
        case .alarm(.inTime(let delay)): "alarm in \(duration(delay))"
        case .converged: "converged"
        case .legacy(let enabled): "legacy \(enabled ? "enabled" : "disabled")"
        }
    }

    private static func checks(_ checks: [DecisionCheck]) -> String {
        checks.map { check in
            switch check {
            case .enabled(let enabled): enabled ? "enabled" : "disabled"
            case .theme(let theme): "theme=\(theme.rawValue)"
            case .reason(let reason): "reason=\(reason.rawValue)"
            case .scope(let key): "scope=\(key?.text ?? "none")"
            case .mode(let mode): "mode=\(mode.rawValue)"
            case .nativeDarkPolicy(let policy): "nativeDarkPolicy=\(policy.rawValue)"
            case .source(let field, let source): "source.\(field.rawValue)=\(source.rawValue)"
            }
        }.joined(separator: " ")
    }

    private static func fieldChecks(_ checks: [SiteFieldCheck]) -> String {
        checks.map { "\($0.field.rawValue)=\($0.value ?? "absent")" }.joined(separator: " ")
    }
}
