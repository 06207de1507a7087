#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// `harness conform`: holds one role's executable to the frame protocol (`PROTOCOL.md`) and to
/// what any correct process of that role must keep, whatever its logic. It plays a short
/// script of inputs on a real process over a fresh folder, answering each yield point, and
/// judges what comes back: the hello, a `done` for every input, yield points in their order,
/// nothing of a transaction after a `fail`, no frame after `done`, an `error` for a frame it
/// cannot read, documents that parse, values only where the input put them, no lock held
/// between inputs, and no write while another holds the lock.
package enum Conformance {
    /// One check and what was seen.
    package struct Check: Equatable, Sendable {
        package let name: String
        package let passed: Bool
        package let detail: String
    }

    /// Checks `role`'s executable in `executables`, switching `flaws` on in every input (to
    /// plant the built-in processes' known bugs); `directory` is an empty folder it may use.
    package static func check(_ role: ProcessName, executables: ProcessExecutables, flaws: [String] = [], directory: String) -> [Check] {
        var judge = Judge(names: names(for: role))
        let script = Script(role: role, executables: executables, flaws: flaws, directory: directory)
        script.play(&judge)
        return judge.checks
    }

    /// The checks that apply to `role`, in the order they are printed: the container's only to
    /// the processes that share it.
    package static func names(for role: ProcessName) -> [String] {
        let common = [hello, done, order, afterFail, quiet, unreadable, parse]
        return role == .background ? common : common + [values, lockFree, underLock]
    }
    /// The checks of this project's design (its shared document, its values, its lock): only a
    /// process of the design must pass them. The others are the protocol's, for every process
    /// of the role.
    package static let designChecks: Set<String> = [parse, values, lockFree, underLock]

    static let hello = "opens with its hello"
    static let done = "ends every input with one done"
    static let order = "stops at the yield points in their order"
    static let afterFail = "takes no later step of a transaction after a fail"
    static let quiet = "sends nothing after done"
    static let unreadable = "answers a frame it cannot read with an error and goes on"
    static let parse = "leaves documents that parse"
    static let values = "writes values only where the input put them"
    static let lockFree = "holds no lock between inputs"
    static let underLock = "writes nothing while another holds the lock"

    /// What the script saw, check by check: the first failure of each is kept.
    struct Judge {
        let names: [String]
        private var failures: [String: String] = [:]
        private var seen: [String: String] = [:]

        init(names: [String]) { self.names = names }

        mutating func pass(_ name: String, _ detail: String) {
            if seen[name] == nil { seen[name] = detail }
        }

        mutating func fail(_ name: String, _ detail: String) {
            if failures[name] == nil { failures[name] = detail }
        }

        mutating func expect(_ condition: Bool, _ name: String, _ detail: @autoclosure () -> String) {
            if condition { pass(name, "") } else { fail(name, detail()) }
        }

        var checks: [Check] {
            names.compactMap { name in
                if let failure = failures[name] { return Check(name: name, passed: false, detail: failure) }
                if let detail = seen[name] { return Check(name: name, passed: true, detail: detail) }
                return nil
            }
        }
    }
}

extension Conformance {
    /// The inputs played on each role, and what is judged of each.
    struct Script {
        let role: ProcessName
        let executables: ProcessExecutables
        let flaws: [String]
        let directory: String
        static let now: EpochMillis = 1_783_940_000_000
        static let scope = try! ScopeKey.parse("a.example")

        func play(_ judge: inout Judge) {
            switch role {
            case .handler: handler(&judge)
            case .app: app(&judge)
            case .background: background(&judge)
            }
        }

        /// A handler serving requests in turn (`--reuse`) over a container with a document.
        private func handler(_ judge: inout Judge) {
            let container = Container(directory)
            container.write(SettingsDocument(documentId: "CONFORM-1"))
            guard let session = Session.start(.handler, executables, ["--container", directory, "--reuse"], flaws: flaws, &judge) else { return }
            defer { session.end() }
            let read = session.exchange(.handler(.requestArrived(NativeRequest.getSnapshot(known: nil).json)), "a snapshot request", &judge)
            session.judgeOrder(read, write: false, &judge)
            container.judgeLockFree(after: "a snapshot request", &judge)

            let before = container.document()
            let change = NativeRequest.patch(scope: Self.scope, set: SiteValues(theme: .dark), reset: [], stamp: Stamp(at: Self.now, origin: .extension, edit: 1))
            let patch = session.exchange(.handler(.requestArrived(change.json)), "a patch", &judge)
            session.judgeOrder(patch, write: true, &judge)
            container.judgeWrote(SiteValues(theme: .dark), at: Self.scope, over: before, after: "a patch", &judge)
            container.judgeLockFree(after: "a patch", &judge)

            judgeFailedWrite(session, container, .handler(.requestArrived(NativeRequest.patch(scope: Self.scope, set: SiteValues(mode: .off), reset: [],
                                                                                                stamp: Stamp(at: Self.now + 1, origin: .extension, edit: 2)).json)), &judge)
            judgeUnderLock(session, container, .handler(.requestArrived(NativeRequest.patch(scope: Self.scope, set: SiteValues(mode: .on), reset: [],
                                                                                               stamp: Stamp(at: Self.now + 2, origin: .extension, edit: 3)).json)), &judge)
            session.judgeUnreadable(then: .handler(.requestArrived(NativeRequest.getSnapshot(known: nil).json)), &judge)
        }

        /// The app over an empty container: it launches, and the user edits the defaults.
        private func app(_ judge: inout Judge) {
            let container = Container(directory)
            guard let session = Session.start(.app, executables, ["--container", directory], flaws: flaws, &judge) else { return }
            defer { session.end() }
            let launch = session.exchange(.app(.launched), "the launch", &judge)
            session.judgeOrder(launch, write: launch.yields.contains(.writeTemp), &judge)
            container.judgeLockFree(after: "the launch", &judge)

            let before = container.document()
            let edit = session.exchange(.app(.userEdited(.changeSite(scope: Self.scope.text, set: SiteValues(theme: .dark), reset: []))), "an edit", &judge)
            session.judgeOrder(edit, write: true, &judge)
            container.judgeWrote(SiteValues(theme: .dark), at: Self.scope, over: before, after: "an edit", &judge)
            container.judgeLockFree(after: "an edit", &judge)

            judgeFailedWrite(session, container, .app(.userEdited(.changeSite(scope: Self.scope.text, set: SiteValues(mode: .off), reset: []))), &judge)
            judgeUnderLock(session, container, .app(.userEdited(.changeSite(scope: Self.scope.text, set: SiteValues(mode: .on), reset: []))), &judge)
            session.judgeUnreadable(then: .app(.cameToForeground), &judge)
        }

        /// The background over an empty extension folder: it starts, a tab asks, the user
        /// changes a site in the popup (saved to `storage.local` if the background saves).
        private func background(_ judge: inout Judge) {
            guard let session = Session.start(.background, executables, ["--storage", directory], flaws: flaws, &judge) else { return }
            defer { session.end() }
            let tab = TabID("t1")
            let start = session.exchange(.background(.started(appearance: .light, tabs: [tab: "https://a.example/"])), "the start", &judge)
            session.judgeOrder(start, write: false, &judge)
            session.completeStorage(start, &judge)
            session.completeStorage(session.exchange(.background(.tabRequestedDecision(tab, url: "https://a.example/", nativeDark: false)), "a tab's request", &judge), &judge)
            session.completeStorage(session.exchange(.background(.popupOpened(tab)), "the popup's opening", &judge), &judge)
            let edit = session.exchange(.background(.popupEdited(set: SiteValues(theme: .dark), reset: [], message: 1, at: Self.now)), "a popup change", &judge)
            session.judgeOrder(edit, write: edit.yields.contains(.storageWriteTemp), &judge)
            session.completeStorage(edit, &judge)
            if let bytes = Container.read(directory + "/" + ExtensionStore<ExtensionFolder, NoGate>.localName) {
                judge.expect(LocalStorage.read(bytes) != nil, Conformance.parse, "storage.local does not read as the layout of PROTOCOL.md section 10")
            }
            let failed = session.exchange(.background(.popupEdited(set: SiteValues(mode: .off), reset: [], message: 2, at: Self.now + 1)), "a popup change failing",
                                          &judge) { point, _ in point == .storageWriteTemp ? .fail(errno: ENOSPC) : .proceed }
            session.judgeAfterFail(failed, at: .storageWriteTemp, &judge)
            session.completeStorage(failed, &judge)
            session.judgeUnreadable(then: .background(.alarmFired(name: "")), &judge)
        }

        /// A write that fails at `write-temp`: no later step of it, the input still done, the
        /// document as it was, the lock released.
        private func judgeFailedWrite(_ session: Session, _ container: Container, _ input: ChildInput, _ judge: inout Judge) {
            let before = container.bytes()
            let failed = session.exchange(input, "a write failing at write-temp", &judge) { point, _ in point == .writeTemp ? .fail(errno: ENOSPC) : .proceed }
            session.judgeAfterFail(failed, at: .writeTemp, &judge)
            judge.expect(container.bytes() == before, Conformance.afterFail, "a write failing at write-temp changed the document")
            container.judgeLockFree(after: "a failed write", &judge)
        }

        /// A write while the harness itself holds the container's lock: the document must not
        /// change (the process's own lock step cannot succeed).
        private func judgeUnderLock(_ session: Session, _ container: Container, _ input: ChildInput, _ judge: inout Judge) {
            let before = container.bytes()
            guard let held = container.takeLock() else {
                judge.fail(Conformance.underLock, "could not take the container's lock to test it")
                return
            }
            _ = session.exchange(input, "a write while another holds the lock", &judge)
            close(held)
            judge.expect(container.bytes() == before, Conformance.underLock, "the document changed while the lock was held by another process")
        }
    }
}
