import ProcessKit
import SiteSettings

/// What a background loaded for `harness check --extension` still has pending, each at the
/// moment Safari would act on it: its storage operations (answered at once, in order), its
/// script timers, and its alarms (raised to Safari's minimum delay, as Safari raises them). The
/// check hands them over until nothing is pending or its window has passed.
struct PendingBackgroundWork {
    private var storage: [Int] = []
    private var timers: [Int: EpochMillis] = [:]
    private var alarms: [String: (at: EpochMillis, period: EpochMillis?)] = [:]

    /// Takes what the background asked for in one input, handed over at `now`.
    mutating func take(_ outputs: [ExtensionWire.Output], now: EpochMillis) {
        for output in outputs {
            switch output {
            case .storagePending(let token): storage.append(token)
            case .setTimer(.script(let number), let at): timers[number] = at
            case .cancelTimer(.script(let number)): timers[number] = nil
            case .setAlarm(let at, let name, let period):
                let minimum = SafariMachine.alarmMinimum
                alarms[name] = (max(at, now + minimum), period.map { max($0, minimum) })
            case .clearAlarm(let name): alarms[name] = nil
            case .setTimer(.nativeTimeout, _), .cancelTimer(.nativeTimeout), .sendNative, .connectNative, .listen, .sendDecision, .showPopup,
                 .popupAnswer, .answerPage, .messageTab, .messagePopup, .postOnPort, .closePort, .connectTab, .storageChanged, .tabsCall, .actionSet,
                 .menusChanged, .permissionsRemoved:
                break
            }
        }
    }

    /// The next input to hand over, and when, if one falls due by `limit`: a storage answer
    /// at once (`now`), else the earliest timer or alarm (a timer first at the same moment).
    mutating func next(now: EpochMillis, limit: EpochMillis) -> (event: ExtensionWire.Event, at: EpochMillis)? {
        if !storage.isEmpty { return (.storageCompleted(token: storage.removeFirst()), now) }
        let timer = timers.min { ($0.value, $0.key) < ($1.value, $1.key) }
        let alarm = alarms.min { ($0.value.at, $0.key) < ($1.value.at, $1.key) }
        if let timer, timer.value <= limit, alarm.map({ timer.value <= $0.value.at }) ?? true {
            timers[timer.key] = nil
            return (.timerFired(.script(timer.key)), max(now, timer.value))
        }
        guard let alarm, alarm.value.at <= limit else { return nil }
        if let period = alarm.value.period { alarms[alarm.key] = (alarm.value.at + period, period) } else { alarms[alarm.key] = nil }
        return (.alarmFired(name: alarm.key), max(now, alarm.value.at))
    }
}

/// A page's timers for the same check: each load's (`tab t1#1`), by number.
struct PendingPageTimers {
    private var due: [PageLoad: [Int: EpochMillis]] = [:]

    mutating func take(_ outputs: [PageHost.Output]) {
        for output in outputs {
            switch output {
            case .setTimer(let page, let number, let at): due[page, default: [:]][number] = at
            case .cancelTimer(let page, let number): due[page]?[number] = nil
            case .sendMessage, .answer, .state, .log, .connect, .postOnPort, .disconnectPort, .queried, .storageChanged, .injected, .openOptionsPage, .requestPermissions, .messageTab, .tabsCall,
                 .permissionsRemoved, .actionSet, .setAlarm, .clearAlarm, .menuChanged: break
            }
        }
    }

    /// The earliest timer due by `limit`, taken off the list.
    mutating func next(limit: EpochMillis) -> (load: PageLoad, number: Int, at: EpochMillis)? {
        let all = due.flatMap { load, timers in timers.map { (load: load, number: $0.key, at: $0.value) } }
        guard let first = all.min(by: { ($0.at, $0.load.name, $0.number) < ($1.at, $1.load.name, $1.number) }), first.at <= limit else { return nil }
        due[first.load]?[first.number] = nil
        return first
    }
}

/// What an extension's scripts use that the runtime lacks, found by reading them (`lacks.mjs`):
/// for each part of the extension (`background`, `content`, `popup`, `options`), the `browser.*` members
/// and the web's globals. A list to look at, not a verdict: reading finds what running may not
/// reach, and may name what a comment or a string holds.
package struct LackedAPIs: Equatable, Sendable {
    package var part: String
    package var api: [String]
    package var globals: [String]

    /// Why the scripts could not be read.
    package struct Unreadable: Error, CustomStringConvertible {
        package var description: String
    }

    /// Reads the scripts of the extension in `folder` with `node`, or says why it could not.
    package static func read(extension folder: String, node: String) -> Result<[LackedAPIs], Unreadable> {
        do {
            let script = try ExtensionRuntime.folder.get() + "/lacks.mjs"
            let child = try ChildProcess(executable: node, arguments: ["--experimental-vm-modules", "--no-warnings", "--disallow-code-generation-from-strings",
                                                                       script, "--extension", ExtensionManifest.absolute(folder)],
                                         environment: PageRuntime.environment)
            defer {
                child.kill()
                _ = child.wait()
            }
            guard let bytes = try child.receive(timeoutMilliseconds: 60_000) else { return .failure(Unreadable(description: "lacks.mjs ended: \(child.stderrTail)")) }
            guard case .object(let parts)? = try? JSONParser.parse(bytes) else {
                return .failure(Unreadable(description: "lacks.mjs sent something else: \(String(decoding: bytes.prefix(200), as: UTF8.self))"))
            }
            func strings(_ value: JSONValue?) -> [String] {
                guard case .array(let items)? = value else { return [] }
                return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
            }
            return .success(["background", "content", "popup", "options"].compactMap { part in
                guard case .object(let found)? = parts[part] else { return nil }
                return LackedAPIs(part: part, api: strings(found["api"]), globals: strings(found["globals"]))
            })
        } catch {
            return .failure(Unreadable(description: "\(error)"))
        }
    }
}
