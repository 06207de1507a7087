import ProcessKit
import SiteSettings

/// Ends a run's faults and lets everything catch up, as the checks after a run expect: no
/// holds or planned crashes, a healthy handler, a thawed background, every waiting reply and
/// timeout played out, Safari in front (a reconciliation point), an open popup shown afresh,
/// everything settled, and a running app in front.
struct Healing {
    let simulation: Simulation

    func heal() {
        simulation.trace.record(simulation.now, "harness", "heal")
        simulation.processes.dropFaults()
        simulation.handlerBehaviour = .healthy
        if simulation.safari.frozenByUser { simulation.thawBackground() }
        simulation.processes.wakeWaiters()
        // Every other profile whose outbox still holds patches comes to the front in turn, so its
        // extension sends them; then the one that was in front (whose extension then starts
        // afresh and whose popup has closed: only in runs that need the detour).
        let front = simulation.profile
        for (other, bytes) in simulation.files.storageFiles(RunFiles.localStorageName, profiles: simulation.safari.profiles) where other != front {
            guard let stored = LocalStorage.read(bytes), !stored.outbox.isEmpty else { continue }
            simulation.switchProfile(other)
            catchUp()
        }
        simulation.switchProfile(front)
        catchUp()
        // The user looks at an open popup again: it shows what the background holds now (a
        // background that died since it opened knows nothing of it). An extension's own popup
        // is left as it is: what it waits for is checked (invariant 17).
        if let tab = simulation.popupTab, !simulation.safari.runsOwnPages { simulation.openPopup(on: tab) }
        simulation.settle()
        // The app, if it runs, comes to the front too, so that its view is checked (on iOS
        // Safari then goes to the background, with every tab settled).
        if simulation.appIsRunning {
            simulation.appForeground()
            simulation.settle()
        }
    }

    /// Safari in front (first, so that on iOS the background's timers run while time passes),
    /// every waiting reply and timeout played out, and Safari in front again.
    private func catchUp() {
        simulation.safariForeground()
        simulation.settle()
        simulation.advance(by: simulation.clock.lastDue(nativeTimeout: BackgroundMachine.nativeTimeout) - simulation.now + 1)
        simulation.safariForeground()
    }
}
