#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

extension Conformance {
    /// One process under test, spoken to frame by frame, with what each exchange showed.
    final class Session {
        /// One input and what came of it: the yield points in order, and the `done` frame's
        /// directives (nil when none came).
        struct Exchange {
            let what: String
            var yields: [YieldPoint] = []
            var directives: ShellDirectives?
        }

        /// How long a frame may take (wall time), and how long "nothing after done" waits.
        static let frameTimeout = 10_000
        static let quietMilliseconds = 200

        private let role: ProcessName
        private let child: ChildProcess
        private let flaws: [String]
        private var now = Script.now

        private init(role: ProcessName, child: ChildProcess, flaws: [String]) {
            self.role = role
            self.child = child
            self.flaws = flaws
        }

        /// Starts the role's executable and reads its hello; nil when it did not start or did
        /// not open with the hello, and then nothing else can be judged.
        static func start(_ role: ProcessName, _ executables: ProcessExecutables, _ arguments: [String], flaws: [String],
                          _ judge: inout Judge) -> Session? {
            let command = executables[role]
            let child: ChildProcess
            do {
                child = try ChildProcess(executable: command.path, arguments: command.arguments + arguments, replyLimit: Framing.replyLimit + 4096)
            } catch {
                judge.fail(Conformance.hello, "\(error)")
                return nil
            }
            let first: [UInt8]?
            do { first = try child.receive(timeoutMilliseconds: frameTimeout) } catch {
                judge.fail(Conformance.hello, "no first frame: \(error)")
                return nil
            }
            guard let first else {
                judge.fail(Conformance.hello, "it ended before its first frame (\(child.wait()))\(tail(child))")
                return nil
            }
            if let problem = ChildProcess.handshakeProblem(first, role: role.wireRole, executable: command.path) {
                judge.fail(Conformance.hello, problem)
                child.kill()
                return nil
            }
            judge.pass(Conformance.hello, String(decoding: first, as: UTF8.self))
            return Session(role: role, child: child, flaws: flaws)
        }

        private static func tail(_ child: ChildProcess) -> String {
            let text = child.stderrTail.suffix(300)
            return text.isEmpty ? "" : "; stderr: \(text)"
        }

        func end() {
            child.closeInput()
            if child.wait(timeoutMilliseconds: Self.frameTimeout) == nil { child.kill() }
        }

        /// Sends one input and answers each yield point with `answer` (the point and its
        /// number in the input); judges that it ends with one `done` and nothing after it.
        func exchange(_ input: ChildInput, _ what: String, _ judge: inout Judge,
                      answer: (YieldPoint, Int) -> YieldAnswer = { _, _ in .proceed }) -> Exchange {
            now += 1_000
            var exchange = Exchange(what: what)
            guard send(.input(input, now: now, uptime: now - Script.now, seed: 1, flaws: flaws), what, &judge) else { return exchange }
            while let message = receive(what, &judge) {
                switch message {
                case .yield(let point, _):
                    exchange.yields.append(point)
                    let frame: ToChild = switch answer(point, exchange.yields.count) {
                    case .proceed: .proceed(now: now)
                    case .fail(let errno): .fail(errno: errno, now: now)
                    case .failAfter(let errno): .fail(errno: errno, now: now, after: true)
                    }
                    guard send(frame, what, &judge) else { return exchange }
                case .done(let directives, _):
                    exchange.directives = directives
                    judge.pass(Conformance.done, "")
                    judgeQuiet(after: what, &judge)
                    return exchange
                case .error(let text):
                    judge.fail(Conformance.done, "\(what): answered with an error frame, not done: \(text)")
                    return exchange
                case .hello:
                    judge.fail(Conformance.done, "\(what): a second hello")
                    return exchange
                case .log:
                    // A script's console line: allowed between an input and its done.
                    continue
                }
            }
            return exchange
        }

        /// Completes every storage operation the background reported (`storagePending`), as
        /// Safari would, each as an input of its own.
        func completeStorage(_ exchange: Exchange, _ judge: inout Judge) {
            guard case .background(let outputs)? = exchange.directives else { return }
            for case .storagePending(let token) in outputs {
                completeStorage(self.exchange(.background(.storageCompleted(token: token)), "a storage completion", &judge), &judge)
            }
        }

        /// The yield points of one input in their documented order: every write inside the
        /// lock (`lock`, `write-temp`, `rename`, `unlock`), extension storage's write then rename.
        /// That an input of the design's messages writes at all (`write`) is the design's: a
        /// process of another design may write nothing.
        func judgeOrder(_ exchange: Exchange, write: Bool, _ judge: inout Judge) {
            guard exchange.directives != nil else { return }
            let seen = exchange.yields.map(\.rawValue).joined(separator: ", ")
            let problem: String?
            switch role {
            case .app, .handler:
                problem = Self.containerOrderProblem(exchange.yields, write: false)
                if write && !exchange.yields.contains(.writeTemp) {
                    judge.fail(Conformance.values, "\(exchange.what) wrote nothing: it stopped at no write-temp (\(seen.isEmpty ? "no yield point" : seen))")
                }
            case .background: problem = Self.storageOrderProblem(exchange.yields)
            }
            if let problem { judge.fail(Conformance.order, "\(exchange.what): \(seen.isEmpty ? "no yield point" : seen): \(problem)") }
            else { judge.pass(Conformance.order, "") }
        }

        static func containerOrderProblem(_ yields: [YieldPoint], write: Bool) -> String? {
            var locked = false
            var writing = false
            for point in yields {
                switch point {
                case .lock:
                    if locked { return "lock taken twice" }
                    locked = true
                case .writeTemp:
                    if !locked { return "write-temp outside the lock" }
                    writing = true
                case .rename:
                    if !writing { return "rename without write-temp before it" }
                    writing = false
                case .unlock:
                    if !locked { return "unlock without lock" }
                    if writing { return "no rename between write-temp and unlock" }
                    locked = false
                case .read, .setAside: break
                case .storageRead, .storageWriteTemp, .storageRename: return "\(point.rawValue) is the background's"
                }
            }
            if locked { return "the input ended with the lock taken" }
            if writing { return "write-temp with no rename after it" }
            if write && !yields.contains(.writeTemp) { return "a write that stops at no write-temp" }
            return nil
        }

        static func storageOrderProblem(_ yields: [YieldPoint]) -> String? {
            var writing = false
            for point in yields {
                switch point {
                case .storageRead: if writing { return "storage-read inside a write" }
                case .storageWriteTemp: writing = true
                case .storageRename:
                    if !writing { return "storage-rename without storage-write-temp before it" }
                    writing = false
                case .lock, .read, .writeTemp, .rename, .unlock, .setAside: return "\(point.rawValue) is the container's"
                }
            }
            return writing ? "storage-write-temp with no storage-rename after it" : nil
        }

        /// After `fail` at `point`, no later step of that write.
        func judgeAfterFail(_ exchange: Exchange, at point: YieldPoint, _ judge: inout Judge) {
            // A process that did not stop there wrote nothing to fail: nothing to judge.
            guard let index = exchange.yields.firstIndex(of: point), exchange.directives != nil else { return }
            let later: Set<YieldPoint> = [.writeTemp, .rename, .storageWriteTemp, .storageRename]
            if let step = exchange.yields[(index + 1)...].first(where: later.contains) {
                judge.fail(Conformance.afterFail, "\(exchange.what): after the fail at \(point.rawValue) it went on to \(step.rawValue)")
            } else {
                judge.pass(Conformance.afterFail, "")
            }
        }

        /// A frame that is not JSON gets an `error` frame, and the next input is served.
        func judgeUnreadable(then input: ChildInput, _ judge: inout Judge) {
            do { try child.send(Array("not json".utf8), timeoutMilliseconds: Self.frameTimeout) } catch {
                judge.fail(Conformance.unreadable, "the frame was not taken: \(error)")
                return
            }
            guard let answer = receive("a frame that is not JSON", &judge) else {
                judge.fail(Conformance.unreadable, "no answer to a frame that is not JSON")
                return
            }
            guard case .error = answer else {
                judge.fail(Conformance.unreadable, "a frame that is not JSON was answered with \(String(decoding: JSONWriter.compact(answer.json), as: UTF8.self))")
                return
            }
            let next = exchange(input, "the input after it", &judge)
            judge.expect(next.directives != nil, Conformance.unreadable, "after the error frame the next input got no done")
        }

        /// Nothing may come between `done` and the next input.
        private func judgeQuiet(after what: String, _ judge: inout Judge) {
            do {
                if let frame = try child.receive(timeoutMilliseconds: Self.quietMilliseconds) {
                    judge.fail(Conformance.quiet, "after the done of \(what) it sent \(String(decoding: frame.prefix(200), as: UTF8.self))")
                    return
                }
            } catch .timedOut {
                // Nothing came: as it should be.
            } catch {
                judge.fail(Conformance.quiet, "after the done of \(what): \(error)")
                return
            }
            judge.pass(Conformance.quiet, "")
        }

        private func send(_ frame: ToChild, _ what: String, _ judge: inout Judge) -> Bool {
            do {
                try child.send(JSONWriter.compact(frame.json), timeoutMilliseconds: Self.frameTimeout)
                return true
            } catch {
                judge.fail(Conformance.done, "\(what): the frame was not taken (\(error))\(Self.tail(child))")
                return false
            }
        }

        /// The next frame, read with the role's codec; nil (and a failure of `done`) when
        /// none came or it does not read.
        private func receive(_ what: String, _ judge: inout Judge) -> FromChild? {
            let bytes: [UInt8]?
            do { bytes = try child.receive(timeoutMilliseconds: Self.frameTimeout) } catch {
                judge.fail(Conformance.done, "\(what): \(error)")
                return nil
            }
            guard let bytes else {
                judge.fail(Conformance.done, "\(what): it ended before done (\(child.wait()))\(Self.tail(child))")
                return nil
            }
            do { return try FromChild.decode(bytes, role: role.wireRole) } catch {
                judge.fail(Conformance.done, "\(what): \(error)")
                return nil
            }
        }
    }

    /// The App Group container's folder as the checks read it.
    struct Container {
        let directory: String
        init(_ directory: String) { self.directory = directory }

        private var path: String { directory + "/" + FileContainer.documentName }

        func write(_ document: SettingsDocument) {
            try? FileIO.writeSynced(DocumentCodec.encode(document), to: path, name: FileContainer.documentName)
        }

        func bytes() -> [UInt8]? { Self.read(path) }

        func document() -> SettingsDocument? {
            bytes().flatMap { try? DocumentCodec.decode($0).document }
        }

        static func read(_ path: String) -> [UInt8]? { try? FileIO.read(path, name: path) }

        /// The container's lock, taken here (a descriptor to close), or nil while another holds it.
        func takeLock() -> Int32? {
            let descriptor = open(directory + "/" + FileContainer.lockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { return nil }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                return nil
            }
            return descriptor
        }

        func judgeLockFree(after what: String, _ judge: inout Judge) {
            guard let held = takeLock() else {
                judge.fail(Conformance.lockFree, "after \(what) the container's lock is still held")
                return
            }
            close(held)
            judge.pass(Conformance.lockFree, "")
        }

        /// After a write of `values` at `scope`: the document reads, that record has them, and
        /// nothing else changed but the revision and the record's stamps.
        func judgeWrote(_ values: SiteValues, at scope: ScopeKey, over before: SettingsDocument?, after what: String, _ judge: inout Judge) {
            guard let bytes = bytes() else {
                judge.fail(Conformance.parse, "after \(what) there is no \(FileContainer.documentName)")
                return
            }
            let document: SettingsDocument
            do { document = try DocumentCodec.decode(bytes).document } catch {
                judge.fail(Conformance.parse, "after \(what) \(FileContainer.documentName) does not read: \(error)")
                return
            }
            judge.pass(Conformance.parse, "")
            var expected = before?.sites[scope]?.values ?? SiteValues()
            if let mode = values.mode { expected.mode = mode }
            if let theme = values.theme { expected.theme = theme }
            if let policy = values.nativeDarkPolicy { expected.nativeDarkPolicy = policy }
            var others = document.sites
            others[scope] = nil
            var othersBefore = before?.sites ?? [:]
            othersBefore[scope] = nil
            if document.sites[scope]?.values != expected {
                // As a scenario writes values: `mode=off theme=dark`.
                func shown(_ values: SiteValues) -> String { FieldValues(values).isEmpty ? "no values" : FieldValues(values).words }
                judge.fail(Conformance.values, "after \(what) \(scope.text) holds \(document.sites[scope].map { shown($0.values) } ?? "no record"), not \(shown(expected))")
            } else if others != othersBefore || (before.map { document.defaults != $0.defaults } ?? false) {
                judge.fail(Conformance.values, "after \(what) other records or the defaults changed too")
            } else {
                judge.pass(Conformance.values, "")
            }
        }
    }
}
