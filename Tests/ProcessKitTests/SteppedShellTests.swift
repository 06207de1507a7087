@testable import ProcessKit
import SiteSettings
import Testing

/// The handler's shell stepped message by message does what it does run straight through a
/// gate: the same yield points, the same reply, the same files, for every answer the harness
/// may give at each point.
struct SteppedShellTests {
    /// A gate that answers from a list and notes each point.
    struct ScriptedGate: YieldGate {
        var answers: [YieldPoint: YieldAnswer]
        var points: [YieldPoint] = []
        mutating func yield(_ point: YieldPoint) -> YieldAnswer {
            points.append(point)
            return answers[point] ?? .proceed
        }
    }

    static let patch = ToChild.input(.handler(.requestArrived(
        .object(["type": .string("patch"), "edit": .integer(1), "at": .integer(1_772_355_600_000), "scope": .string("a.example"),
                 "set": .object(["theme": .string("dark")]), "reset": .array([])]))), now: 1_772_355_600_000, uptime: 0, seed: 1, flaws: [])

    @Test(arguments: [YieldAnswer.proceed, .fail(errno: 5), .failAfter(errno: 5)], [YieldPoint.lock, .read, .writeTemp, .rename, .unlock])
    func steppedAndStraightThroughAgree(answer: YieldAnswer, at point: YieldPoint) throws {
        let answers = [point: answer]
        var executor = ContainerExecutor(storage: SimulatedContainer(), gate: ScriptedGate(answers: answers))
        let (straight, served) = NativeHandlerShell.respond(to: Self.patch, on: &executor)
        #expect(served)

        let container = SimulatedContainer()
        var stepped = NativeHandlerShell.stepped(storage: container)
        var points: [YieldPoint] = []
        var message = stepped.take(Self.patch)
        while case .yield(let at, _) = message {
            points.append(at)
            let given = answers[at] ?? .proceed
            message = switch given {
            case .proceed: stepped.take(.proceed(now: 1_772_355_600_000))
            case .fail(let errno): stepped.take(.fail(errno: errno, now: 1_772_355_600_000))
            case .failAfter(let errno): stepped.take(.fail(errno: errno, now: 1_772_355_600_000, after: true))
            }
        }
        #expect(points == executor.gate.points)
        #expect(message == straight)
        #expect(container.files == executor.storage.files)
        #expect(stepped.ended)
        #expect(points.first == .lock && points.contains(point), "\(points)")
    }

    @Test func aShellWaitingAtAYieldPointRefusesAnInputAndStillWaits() {
        var stepped = NativeHandlerShell.stepped(storage: SimulatedContainer())
        guard case .yield(let point, _) = stepped.take(Self.patch) else { Issue.record("no yield point"); return }
        #expect(stepped.take(Self.patch) == .error("an input arrived while waiting at yield point '\(point.rawValue)'; ignored"))
        guard case .yield = stepped.take(.proceed(now: 1_772_355_600_000)) else { Issue.record("it did not go on"); return }
    }
}
