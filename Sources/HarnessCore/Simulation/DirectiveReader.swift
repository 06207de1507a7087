import ProcessKit
import SiteSettings

/// Hands the background its events and gives the simulation each process's directives, as
/// its role's codec read them from the pipe or as a shell in process handed them over.
///
/// A pipe carries only JSON, so both transports must see the same: in a debug build the
/// in-process transport reads each frame back from its JSON (`SteppedChild`).
struct DirectiveReader {
    let monitor: InvariantMonitor

    /// Sends the background one event.
    func begin(_ driver: ProcessDriver, _ event: ExtensionWire.Event, now: EpochMillis) -> ProcessDriver.Step {
        driver.begin(.background(event), now: now)
    }

    /// What the background asks of Safari.
    func backgroundOutputs(_ directives: ProcessDriver.Directives, from driver: ProcessDriver, now: EpochMillis) -> [ExtensionWire.Output] {
        if case .background(let outputs) = directives { return outputs }
        return wrongRole(directives, from: driver)
    }

    func appDirectives(_ directives: ProcessDriver.Directives, from driver: ProcessDriver, now: EpochMillis) -> [AppWire.Output] {
        if case .app(let directives) = directives { return directives }
        return wrongRole(directives, from: driver)
    }

    func handlerDirectives(_ directives: ProcessDriver.Directives, from driver: ProcessDriver, now: EpochMillis) -> [NativeHandlerWire.Output] {
        if case .handler(let directives) = directives { return directives }
        return wrongRole(directives, from: driver)
    }

    /// Directives of another role than the process plays: its codec reads only its own, so
    /// only a shell handed over in process could give them.
    private func wrongRole<Directive>(_ directives: ProcessDriver.Directives, from driver: ProcessDriver) -> [Directive] {
        monitor.record("\(driver.label) answered with another role's directives: \(directives)")
        return []
    }
}
