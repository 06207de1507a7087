#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

extension NativeFuzz {
    /// Messages `from..<from+count` of the seed's sequence, each to a fresh `NativeHandler`
    /// process (as Safari starts one per request) over a real container folder under
    /// `directory`, with the handler let through every yield point.
    package static func runOnProcesses(seed: UInt64, from: Int, count: Int, executables: ProcessExecutables, directory: String,
                                      progress: ((Int) -> Void)? = nil) -> Tally {
        mkdir(directory, 0o755)
        var tally = Tally()
        for index in from..<(from + count) {
            let mutant = mutant(seed: seed, index: index)
            let container = directory + "/\(index)"
            mkdir(container, 0o755)
            defer { Folder.remove(container) }
            let path = container + "/" + FileContainer.documentName
            guard (try? FileIO.writeSynced(document, to: path, name: FileContainer.documentName)) != nil else {
                judge(mutant, index: index, answer: .none("could not write \(path)"), before: [:], after: [:], into: &tally)
                continue
            }
            let before = files(in: container)
            let answer = serve(frame(mutant.bytes), executables: executables, container: container)
            judge(mutant, index: index, answer: answer, before: before, after: files(in: container), into: &tally)
            progress?(index - from + 1)
        }
        rmdir(directory)
        return tally
    }

    /// Sends one frame to a new handler, lets it through every yield point, and returns its answer.
    private static func serve(_ frame: [UInt8], executables: ProcessExecutables, container: String) -> Answer {
        let child: ChildProcess
        do {
            child = try executables.start(.handler, ["--container", container], replyLimit: Simulation.handlerFrameLimit)
        } catch {
            return .none("could not start: \(error)")
        }
        defer {
            child.closeInput()
            if child.wait(timeoutMilliseconds: 10_000) == nil { child.kill() }
        }
        do { try child.send(frame, timeoutMilliseconds: 10_000) } catch { return .none("the frame was not taken: \(error)") }
        while true {
            guard let bytes = try? child.receive(timeoutMilliseconds: 10_000) else {
                return .none("the handler ended without answering (\(child.wait(timeoutMilliseconds: 10_000).map { "\($0)" } ?? "still running"))")
            }
            switch try? FromChild.decode(bytes, role: .handler) {
            case .yield?:
                do { try child.send(JSONWriter.compact(ToChild.proceed(now: now).json), timeoutMilliseconds: 10_000) } catch {
                    return .none("the handler stopped at a yield point")
                }
            case .done(.handler(let directives), _)?:
                let reply = directives.lazy.compactMap { if case .reply(let reply) = $0 { reply.json } else { nil } }.first
                return reply.map(Answer.reply) ?? .none("a done frame without a reply")
            case .error(let text)?:
                return .errorFrame(text)
            case nil, .done?, .hello?, .log?:
                // (The hello came first, read by the process's `receive`.)
                return .none("an unreadable frame")
            }
        }
    }

    /// Every file in a container folder, by name, but the lock file (empty, created by the
    /// first writer to take the lock: it holds no data).
    private static func files(in directory: String) -> [String: [UInt8]] {
        Folder.files(in: directory).filter { $0.key != FileContainer.lockName }
    }
}
