import ProcessKit
import SiteSettings

// MARK: - Steps

/// How each step of a scenario is played on the run's simulation: an action, an expectation (at
/// once or within a time), and the user's edits kept for the oracle.
extension ScenarioRunner {
    func perform(_ line: Scenario.Line) {
        currentLine = line.number
        switch line.step {
        case .platform, .epoch, .seed, .shared, .cache, .sharedLegacy, .sharedDamaged, .alarmMinimum, .backgroundLoadTime, .handlerReuse, .handlerFresh, .freshInstall, .extensionFolder, .fetchStub, .expectFailure, .watchdog, .heapLimit, .handlerSource, .groupDefaults, .probe:
            // Read into `setup` before the run.
            break
        case .profile where simulation == nil:
            // Before the first action: the profile in front at the start, also in `setup`.
            break
        case .settle:
            started().settle()
        case .advance(let duration):
            started().advance(by: duration)
        case .deviceSleep(let duration):
            started().sleepDevice(for: duration)
        case .expect(let expectation, let within, _):
            // Under a planned crash or power cut only the invariants are checked; a bounded
            // expectation still moves time as it would without the fault, so that the run is
            // the same up to the fault.
            let checked = crashAt == nil && powerCut == nil
            let checker = ExpectationChecker(simulation: started(), lastAppEdit: lastAppEdit)
            var problems = within.map { waitFor($0) { checker.problems(expectation) } } ?? checker.problems(expectation)
            if !checked { problems = [] }
            // One failure per line, with every way it fails.
            if !problems.isEmpty { fail(line, .expectation, problems.joined(separator: "\n  "), about: expectation.tab) }
        case .profile, .app, .safari, .tab, .popup, .appearance, .background, .handler, .hold, .release, .crash, .fail, .legacy, .menuClick, .command, .actionClick, .optionsOpen, .permission, .permissionRevoke:
            if !line.step.keepsReconciliationBound { started().liveness.boundEnded() }
            act(line.step, started())
            simulation?.settle(deferring: .nativeReply)
        }
    }

    /// `expect ... within DURATION`: everything pending plays out, then time moves from one
    /// due moment to the next (a timer, an alarm, the unload check, a held reply) until the
    /// expectation holds, and stays there; at the bound, the problems then, said as such.
    private func waitFor(_ within: EpochMillis, _ problems: () -> [String]) -> [String] {
        let simulation = started()
        simulation.settle()
        let start = simulation.now, bound = simulation.now + within
        var found = problems()
        var movedAt: EpochMillis?
        while !found.isEmpty && simulation.now < bound {
            let due = simulation.clock.nextDue(before: bound, background: simulation.background?.incarnation,
                                               frozen: simulation.safari.isBackgroundFrozen, safari: simulation.safari)?.at ?? bound
            // Something due now that changed nothing must not hold time still.
            let next = due > simulation.now || movedAt != simulation.now ? due : min(bound, simulation.now + 1)
            movedAt = simulation.now
            simulation.advance(by: next - simulation.now)
            found = problems()
        }
        guard !found.isEmpty else { return [] }
        return ["not so within \(ScenarioPrinter.duration(simulation.now - start)), at the bound (\(simulation.trace.time(simulation.now))):"] + found
    }

    /// One action, played on the simulation; the user's edits are kept for the oracle.
    private func act(_ step: Step, _ simulation: Simulation) {
        switch step {
        case .app(let app): self.app(app, simulation)
        case .safari(.foreground): simulation.safariForeground()
        case .safari(.background): simulation.safariBackground()
        case .safari(.restart): simulation.safariRestart()
        case .safari(.inspect(let attached)): simulation.inspectBackground(attached)
        case .safari(.updateExtension(_, let path?)):
            let update = updateFolders[path]!
            if setup!.extensionPages { popupControls = update.popupControls }
            simulation.updateExtension(installing: update)
        case .safari(.updateExtension(let version, nil)): simulation.updateExtension(to: version)
        case .tab(let tab): self.tab(tab, simulation)
        case .popup(let popup): self.popup(popup, simulation)
        case .background(.unload): simulation.unloadBackground()
        case .background(.kill): simulation.killBackground()
        case .background(.freeze): simulation.freezeBackground()
        case .background(.thaw): simulation.thawBackground()
        case .handler(let behaviour): simulation.handlerBehaviour = behaviour
        case .hold(let process, let point): simulation.processes.hold(process, at: point)
        case .crash(let process, let point): simulation.processes.crash(process, at: point)
        case .fail(let process, let point, let errno, let after): simulation.processes.failStorage(process, at: point, errno: errno.code, after: after)
        case .release(let process): simulation.processes.release(process)
        case .profile(let name): simulation.switchProfile(name)
        case .appearance(let appearance): simulation.setAppearance(appearance)
        case .legacy(let message): legacy(message, simulation)
        case .menuClick(let id, let tab): simulation.chooseMenuItem(id, in: tab)
        case .command(let name): simulation.pressCommand(name)
        case .actionClick(let tab): simulation.clickAction(over: tab)
        case .optionsOpen: simulation.openOptionsPage()
        case .permission(let granted): simulation.answerPermissionPrompt(granted: granted)
        case .permissionRevoke(let item): simulation.revokePermission(item)
        case .platform, .epoch, .seed, .shared, .cache, .sharedLegacy, .sharedDamaged, .alarmMinimum, .backgroundLoadTime, .handlerReuse, .handlerFresh, .freshInstall, .extensionFolder, .fetchStub, .expectFailure, .watchdog, .heapLimit, .handlerSource, .groupDefaults, .probe, .advance, .deviceSleep, .settle, .expect:
            preconditionFailure("not an action: \(ScenarioPrinter.line(step))")
        }
    }

    private func app(_ step: AppStep, _ simulation: Simulation) {
        switch step {
        case .launch: simulation.launchApp()
        case .foreground: simulation.appForeground()
        case .background: simulation.appBackground()
        case .kill: simulation.killApp()
        case .setDefaults(let values):
            let number = simulation.appEdit(.setDefaults(values.defaults))
            record(number, .app, .defaults, set: values)
        case .setSite(let key, let values):
            let number = simulation.appEdit(.changeSite(scope: key.text, set: values.site, reset: []))
            record(number, .app, .site(key.key.text), set: values)
        case .resetSite(let key, let fields):
            let number = simulation.appEdit(.changeSite(scope: key.text, set: SiteValues(), reset: fields))
            record(number, .app, .site(key.key.text), reset: fields)
        case .deleteSite(let key):
            let number = simulation.appEdit(.deleteSite(scope: key.text))
            lastAppEdit = number
            simulation.monitor.userEdited(UserEdit(number: number, origin: .app, at: simulation.now, target: .site(key.key.text), values: Self.deletion, line: currentLine))
        case .setGroup(let suite, let key, let value): simulation.teamAppWrites(suite: suite, key: key, value: value)
        case .resetGroup(let suite, let key): simulation.teamAppWrites(suite: suite, key: key, value: nil)
        case .dispatch(let name, let userInfo): simulation.teamAppDispatches(name: name, userInfo: userInfo)
        }
    }

    private func tab(_ step: TabStep, _ simulation: Simulation) {
        switch step {
        case .open(let id, let url, let nativeDark, let window, let html):
            simulation.openTab(id, url: probeAddress ?? url, nativeDark: nativeDark, window: window, html: html.flatMap { setup?.pageDocuments[$0] })
        case .activate(let id): simulation.activateTab(id)
        case .reload(let id): simulation.reloadTab(id)
        case .navigate(let id, let url, let html): simulation.navigateTab(id, to: probeAddress ?? url, html: html.flatMap { setup?.pageDocuments[$0] })
        case .close(let id): simulation.closeTab(id)
        case .nativeDark(let id, let on): simulation.setNativeDark(id, on)
        case .click(let id, let element): simulation.useInTab(id, .click(element))
        case .choose(let id, let element, let value): simulation.useInTab(id, .choose(element, value: value))
        }
    }

    private func popup(_ step: PopupStep, _ simulation: Simulation) {
        // The record a popup change goes to is one of its page's, which the background names
        // when it answers.
        let url = simulation.popupTab.flatMap { simulation.tabs[$0]?.url }
        let possible = url.flatMap { try? PageAddress.parse($0).get() }?.scopeKeys().map(\.text) ?? []
        // With no popup open, a change is no edit: Safari says nothing happens.
        let open = simulation.popupTab != nil
        switch step {
        case .open(let id): simulation.openPopup(on: id)
        case .scope(let key): simulation.choosePopupScope(key.key.text)
        case .set(let values):
            let number = simulation.popupEdit(set: values.site)
            if open { record(number, .popup, .popupSite(possible: possible), set: values) }
        case .reset(let fields):
            let number = simulation.popupEdit(reset: fields)
            if open { record(number, .popup, .popupSite(possible: possible), reset: fields) }
        case .forget:
            let number = simulation.popupForget()
            if open {
                simulation.monitor.userEdited(UserEdit(number: number, origin: .popup, at: simulation.now, target: .popupSite(possible: possible), values: Self.deletion,
                                                       source: simulation.profile, line: currentLine))
            }
        case .pause(let duration): simulation.popupPause(for: duration)
        case .close: simulation.closePopup()
        case .click(let id):
            // The design's "forget this site" in the extension's own popup: which record it
            // deleted, and whether it did, only its background knows.
            if open && popupControls.forget.contains(id) {
                simulation.monitor.userEdited(UserEdit(origin: .popup, at: simulation.now, target: .popupSite(possible: possible), values: Self.deletion,
                                                       source: simulation.profile, line: currentLine))
            }
            simulation.useInPopup(.click(id))
        case .choose(let id, let value):
            // A select that edits a field as the design's popup does: the empty value resets it.
            if open, let field = popupControls.fields[id] {
                simulation.monitor.userEdited(UserEdit(origin: .popup, at: simulation.now, target: .popupSite(possible: possible),
                                                       values: [field.rawValue: value.isEmpty ? nil : value], source: simulation.profile, line: currentLine))
            }
            simulation.useInPopup(.choose(id, value: value))
        }
    }

    private func legacy(_ message: LegacyStep, _ simulation: Simulation) {
        switch message {
        case .getEnabled:
            simulation.legacyMessage(.getEnabled)
        case .toggle:
            let before = simulation.legacyStarted
            simulation.legacyMessage(.toggleEnabled)
            // The old extension shows the flipped state the handler answered this toggle (an
            // earlier toggle's answer may arrive meanwhile); with no answer, either state may
            // be stored.
            let started = simulation.legacyStarted > before
            if started, case .enabled(let enabled)? = simulation.legacyAnswers[before + 1] {
                simulation.monitor.userEdited(UserEdit(answer: .saved, origin: .popup, at: simulation.now, target: .defaults, values: ["mode": enabled ? "on" : "off"], source: "legacy", line: currentLine))
            } else {
                for value in ["on", "off"] {
                    simulation.monitor.userEdited(UserEdit(origin: .popup, at: simulation.now, target: .defaults, values: ["mode": value], source: "legacy", line: currentLine))
                }
            }
        }
    }

    /// Every field of a site cleared: "delete this site".
    private static let deletion: [String: String?] = Dictionary(uniqueKeysWithValues: SiteField.allCases.map { ($0.rawValue, String?.none) })

    /// Keeps an edit for the oracle.
    private func record(_ number: Int, _ origin: Oracle.Origin, _ target: UserEdit.Target, set: FieldValues = FieldValues(), reset: [SiteField] = []) {
        if origin == .app { lastAppEdit = number }
        var values: [String: String?] = [:]
        for pair in set.texts { values[pair.name] = pair.value }
        for field in reset { values[field.rawValue] = String?.none }
        let simulation = started()
        simulation.monitor.userEdited(UserEdit(number: number, origin: origin, at: simulation.now, target: target, values: values,
                                               source: origin == .popup ? simulation.profile : nil, line: currentLine))
    }
}
