import ProcessKit
import SiteSettings

/// Reads the directives a process gave for an input as its machine made them, for the
/// simulation to carry out: in process as they were handed over, else from the JSON the process
/// wrote with its codec (one that does not read is traced and skipped).
///
/// The process transport carries only JSON, so both transports must see the same: a debug
/// build (the tests) reads what was handed over in process back from its JSON, each event for
/// the background and each process's directives, and records a problem when that differs (by
/// `==`, so up to the canonical equivalence of strings). A release build trusts the codecs the
/// tests hold to that.
struct DirectiveReader {
    let trace: Trace
    let monitor: InvariantMonitor

    /// Sends the background one event (written out, on a pipe, as its codec writes it). A debug
    /// build checks that reading that back gives the event: a process reading it from its pipe
    /// takes what it reads.
    func begin(_ driver: ProcessDriver, _ event: ExtensionWire.Event, now: EpochMillis) -> ProcessDriver.Step {
        #if DEBUG
        if (try? ExtensionWire.decode(ExtensionWire.encode(event))) != event {
            monitor.record("the event for \(driver.label) reads back from its JSON as another: \(String(decoding: JSONWriter.compact(ExtensionWire.encode(event)), as: UTF8.self))")
        }
        #endif
        return driver.begin(event: event, now: now)
    }

    /// What the background asks of Safari; one that does not read is traced as Safari sees it.
    func backgroundOutputs(_ directives: ProcessDriver.Directives, from driver: ProcessDriver, now: EpochMillis) -> [ExtensionWire.Output] {
        if let typed = directives.background { return checked(typed, directives, from: driver, ExtensionWire.directive) }
        return directives.json.compactMap { json in
            do { return try ExtensionWire.directive(json) } catch {
                trace.record(now, "safari", "unreadable directive: \(error)", json)
                return nil
            }
        }
    }

    func appDirectives(_ directives: ProcessDriver.Directives, from driver: ProcessDriver, now: EpochMillis) -> [AppMachine.Directive] {
        decoded(directives, directives.app, from: driver, now: now, AppWire.directive)
    }

    func handlerDirectives(_ directives: ProcessDriver.Directives, from driver: ProcessDriver, now: EpochMillis) -> [NativeHandlerMachine.Directive] {
        decoded(directives, directives.handler, from: driver, now: now, NativeHandlerWire.directive)
    }

    /// The directives handed over (`typed`), or those read from the JSON.
    private func decoded<Directive: Equatable>(_ directives: ProcessDriver.Directives, _ typed: [Directive]?, from driver: ProcessDriver,
                                               now: EpochMillis, _ read: (JSONValue) throws(NativeMessageError) -> Directive) -> [Directive] {
        if let typed { return checked(typed, directives, from: driver, read) }
        return directives.json.compactMap { json in
            do { return try read(json) } catch {
                trace.record(now, "harness", "unreadable directive from \(driver.label): \(error)", json)
                return nil
            }
        }
    }

    /// Directives handed over in process, read back from their JSON in a debug build.
    private func checked<Directive: Equatable>(_ typed: [Directive], _ directives: ProcessDriver.Directives, from driver: ProcessDriver,
                                               _ read: (JSONValue) throws(NativeMessageError) -> Directive) -> [Directive] {
        #if DEBUG
        let readBack = directives.json.map { try? read($0) }
        if readBack != typed.map(Optional.some) {
            let written = directives.json.map { String(decoding: JSONWriter.compact($0), as: UTF8.self) }.joined(separator: ", ")
            monitor.record("\(driver.label)'s directives read back from their JSON differ from those it gave: \(written)")
        }
        #endif
        return typed
    }
}
