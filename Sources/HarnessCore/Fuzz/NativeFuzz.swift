import ProcessKit
import SiteSettings

/// The native handler's boundary under fire: seeded messages, most of them mutated, each labelled
/// valid or invalid by how it was made (never by the handler's own validator), sent as the
/// handler receives them (inside an input frame), and judged: a valid message gets a normal
/// answer and leaves a readable document; an invalid one gets an error answer and leaves every
/// file's bytes as they were.
package enum NativeFuzz {
    /// The handler's clock for every message (2026-07-13T10:53:20Z).
    static let now: EpochMillis = 1_783_940_000_000
    /// How far past `now` an edit's time may be: the documented tolerance, written here rather
    /// than taken from the handler, so a handler that drifts from it is caught.
    static let tolerance: EpochMillis = 60_000
    /// The sample document's revision, and when its site fields were last written.
    static let revision: Int64 = 9
    static let written = now - 3_600_000
    /// The sample document's site fields: docs.example.com's theme, .example.org's mode, and
    /// studio.example deleted (every field cleared) at `written`.
    static let sampleSites: [String: [String: String?]] = [
        "docs.example.com": ["theme": "sepia"], ".example.org": ["mode": "off"],
        "studio.example": ["mode": nil, "theme": nil, "nativeDarkPolicy": nil],
    ]

    /// The document every message meets.
    static let document: [UInt8] = {
        var document = SettingsDocument(documentId: "FUZZ-1", revision: revision)
        let stamp = Stamp(at: written)
        document.sites[try! ScopeKey.parse("docs.example.com")] = SiteRecord(values: SiteValues(theme: .sepia), changedAt: [.theme: stamp])
        document.sites[try! ScopeKey.parse(".example.org")] = SiteRecord(values: SiteValues(mode: .off), changedAt: [.mode: stamp])
        document.tombstones[try! ScopeKey.parse("studio.example")] = [.mode: stamp, .theme: stamp, .nativeDarkPolicy: stamp]
        return DocumentCodec.encode(document)
    }()

    /// Scope keys the design accepts, with the key each is stored under (lower case, A-labels,
    /// no trailing dot, dot segments removed).
    static let canonicalScopes: KeyValuePairs<String, String> = [
        "docs.example.com": "docs.example.com", "DOCS.Example.COM": "docs.example.com", ".example.org": ".example.org",
        "example.net/tools/editor": "example.net/tools/editor", "bücher.example": "xn--bcher-kva.example",
        "docs.example.com.": "docs.example.com", "192.168.1.20": "192.168.1.20", "a.example": "a.example",
        "studio.example": "studio.example", "a.example/../../etc": "a.example/etc",
    ]
    static let validScopes = canonicalScopes.map(\.key)
    /// Scope keys it refuses: path tricks, empty labels, spaces, long labels, ports, schemes,
    /// a public suffix as a domain, a NUL, and thousands of labels.
    static let invalidScopes = ["../../x", "", ".", "a..b", "exa mple.com", String(repeating: "a", count: 64) + ".com",
                                "http://a.example", "a.example:8080", ".com", "exa\u{0}mple.com",
                                String(repeating: "a.", count: 3000) + "example"]

    /// One message and how it was made.
    struct Mutant: Sendable {
        var bytes: [UInt8]
        var valid: Bool
        /// What was done to it, for reports: `patch`, `patch/future-time`, `getSnapshot/truncated`.
        var kind: String

        init(bytes: [UInt8], valid: Bool, kind: String) {
            self.bytes = bytes
            self.valid = valid
            self.kind = kind
        }
    }

    /// The `index`-th message of the `seed`'s sequence: the same on every machine.
    static func mutant(seed: UInt64, index: Int) -> Mutant {
        var random = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index))
        var (message, kind) = baseMessage(&random)
        var valid = true
        var bytes: [UInt8]
        // Half the messages stay valid; the rest get one mutation.
        if random.chance(1, in: 2) {
            bytes = JSONWriter.compact(.object(message))
        } else {
            let mutation = random.below(12)
            switch mutation {
            case 0, 1, 2:
                (message, kind, valid) = mutateMembers(message, kind, &random)
                bytes = JSONWriter.compact(.object(message))
            case 3:
                bytes = JSONWriter.compact(.object(message))
                bytes = Array(bytes.prefix(random.below(bytes.count)))
                (kind, valid) = (kind + "/truncated", false)
            case 4:
                bytes = JSONWriter.compact(.object(message))
                insideAString(&bytes, [0xFF, 0xFE], &random)
                (kind, valid) = (kind + "/invalid-utf8", false)
            case 5:
                bytes = JSONWriter.compact(.object(message))
                insideAString(&bytes, [0x00], &random)
                (kind, valid) = (kind + "/raw-nul", false)
            case 6:
                bytes = JSONWriter.compact(.object(["type": .string(["setDocument", "GETSNAPSHOT", "patch ", "", "eval"][random.below(5)])]))
                (kind, valid) = ("unknown-type", false)
            case 7:
                bytes = deeplyNested(random.below(3) == 0 ? 100_000 : 300)
                (kind, valid) = ("patch/deep-nesting", false)
            case 8:
                message["extra" + String(random.below(10))] = .string("x")
                bytes = JSONWriter.compact(.object(message))
                (kind, valid) = (kind + "/unknown-member", false)
            case 9:
                let top: [JSONValue] = [.array([.object(message)]), .string("patch"), .integer(7), .null, .bool(true)]
                bytes = JSONWriter.compact(top[random.below(top.count)])
                (kind, valid) = ("not-an-object", false)
            default:
                (message, kind, valid) = mutateHostile(message, kind, &random)
                bytes = JSONWriter.compact(.object(message))
            }
        }
        return Mutant(bytes: bytes, valid: valid, kind: kind)
    }

    /// A valid message of a random type.
    private static func baseMessage(_ random: inout SeededRandom) -> ([String: JSONValue], String) {
        switch random.below(8) {
        case 0:
            var message: [String: JSONValue] = ["type": .string("getSnapshot")]
            if random.chance(1, in: 2) {
                message["known"] = .object(["documentId": .string(random.chance(1, in: 2) ? "FUZZ-1" : "OTHER"), "revision": .integer(Int64(random.below(20)))])
            }
            return (message, "getSnapshot")
        case 1: return (["type": .string("getEnabled")], "getEnabled")
        case 2: return (["type": .string("toggleEnabled")], "toggleEnabled")
        case 3:
            return (["type": .string("deleteSite"), "scope": .string(validScopes[random.below(validScopes.count)]),
                     "at": .integer(validTime(&random)), "edit": .integer(Int64(random.below(1000)))], "deleteSite")
        default:
            var set: [String: JSONValue] = [:]
            var reset: [JSONValue] = []
            let values: [(String, [String])] = [("mode", ["on", "off", "auto", "scheduled"]), ("theme", Theme.catalogue.map(\.rawValue)),
                                                ("nativeDarkPolicy", ["respect", "override"])]
            for (field, options) in values {
                switch random.below(3) {
                case 0: set[field] = .string(options[random.below(options.count)])
                case 1: reset.append(.string(field))
                default: break
                }
            }
            if set.isEmpty && reset.isEmpty { set["theme"] = .string("dark") }
            var message: [String: JSONValue] = ["type": .string("patch"), "scope": .string(validScopes[random.below(validScopes.count)]),
                                                "at": .integer(validTime(&random)), "edit": .integer(Int64(random.below(1000)))]
            if !set.isEmpty || random.chance(1, in: 4) { message["set"] = .object(set) }
            if !reset.isEmpty || random.chance(1, in: 4) { message["reset"] = .array(reset) }
            return (message, "patch")
        }
    }

    /// A time from a day before `now` to the edge of the tolerance after it.
    private static func validTime(_ random: inout SeededRandom) -> Int64 {
        now - Int64(random.below(86_400_000)) + (random.chance(1, in: 8) ? tolerance : 0)
    }

    /// Wrong types, missing members, and invalid values of the right type.
    private static func mutateMembers(_ message: [String: JSONValue], _ kind: String, _ random: inout SeededRandom) -> ([String: JSONValue], String, Bool) {
        var message = message
        let wrong: [JSONValue] = [.integer(5), .string("5"), .array([]), .object([:]), .null, .bool(false), .double(1.5)]
        let members = message.keys.sorted()
        let name = members[random.below(members.count)]
        switch random.below(3) {
        case 0:
            // A member of the wrong type. A replacement of the member's own type is swapped for
            // another (an empty `set` beside a non-empty `reset` would still be valid).
            var replacement = wrong[random.below(wrong.count)]
            switch (message[name], replacement) {
            case (.string?, .string): replacement = .integer(5)
            case (.integer?, .integer): replacement = .string("5")
            case (.object?, .object), (.array?, .array): replacement = .null
            default: break
            }
            message[name] = replacement
            return (message, kind + "/wrong-type:\(name)", false)
        case 1 where name != "type" && ["patch", "deleteSite"].contains(kind) && ["scope", "at", "edit"].contains(name):
            message[name] = nil
            return (message, kind + "/missing:\(name)", false)
        default:
            return mutateValue(message, kind, &random)
        }
    }

    /// A value of the right type that the protocol refuses (or, for a few, accepts).
    private static func mutateValue(_ message: [String: JSONValue], _ kind: String, _ random: inout SeededRandom) -> ([String: JSONValue], String, Bool) {
        var message = message
        switch kind {
        case "patch", "deleteSite":
            switch random.below(7) {
            case 0: message["at"] = .integer(now + tolerance + 1 + Int64(random.below(1_000_000_000))); return (message, kind + "/future-time", false)
            case 1: message["at"] = .integer(-Int64(random.below(1_000_000)) - 1); return (message, kind + "/negative-time", false)
            case 2: message["at"] = .integer(now / 1000); return (message, kind + "/time-in-seconds", false)
            case 3: message["edit"] = .integer(-1 - Int64(random.below(100))); return (message, kind + "/negative-edit", false)
            case 4 where kind == "patch":
                message["set"] = .object(["theme": .string(["neon", "DARK", "", "dark "][random.below(4)])])
                message["reset"] = nil
                return (message, kind + "/unknown-theme", false)
            case 5 where kind == "patch":
                message["set"] = .object(["mode": .string("off")])
                message["reset"] = .array([.string("mode")])
                return (message, kind + "/set-and-reset", false)
            case 6 where kind == "patch":
                message["set"] = nil
                message["reset"] = .array(random.chance(1, in: 2) ? [] : Array(repeating: .string("theme"), count: 2 + random.below(5000)))
                return (message, kind + "/empty-or-repeated-reset", false)
            default:
                message["at"] = .integer(now + tolerance)
                return (message, kind + "/time-at-the-tolerance", true)
            }
        case "getSnapshot":
            switch random.below(3) {
            case 0: message["known"] = .object(["documentId": .string(""), "revision": .integer(1)])
            case 1: message["known"] = .object(["documentId": .string(String(repeating: "x", count: 129 + random.below(100_000))), "revision": .integer(1)])
            default: message["known"] = .object(["documentId": .string("FUZZ-1"), "revision": .integer(-1 - Int64(random.below(9)))])
            }
            return (message, kind + "/bad-known", false)
        default:
            message["extra"] = .integer(1)
            return (message, kind + "/unknown-member", false)
        }
    }

    /// A hostile scope key, or a huge string in place of one.
    private static func mutateHostile(_ message: [String: JSONValue], _ kind: String, _ random: inout SeededRandom) -> ([String: JSONValue], String, Bool) {
        var message = message
        guard kind == "patch" || kind == "deleteSite" else {
            message["type"] = .string(String(repeating: "A", count: 1 + random.below(200_000)))
            return (message, "huge-type", false)
        }
        if random.chance(1, in: 5) {
            message["scope"] = .string(String(repeating: "a", count: 300 + random.below(300_000)) + ".example")
            return (message, kind + "/huge-scope", false)
        }
        message["scope"] = .string(invalidScopes[random.below(invalidScopes.count)])
        return (message, kind + "/hostile-scope", false)
    }

    /// A patch whose mode is `depth` nested arrays.
    private static func deeplyNested(_ depth: Int) -> [UInt8] {
        Array("{\"type\":\"patch\",\"scope\":\"a.example\",\"at\":\(now),\"edit\":1,\"set\":{\"mode\":".utf8)
            + Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth) + Array("}}".utf8)
    }

    /// Puts `insert` just after the opening quote of a random string.
    private static func insideAString(_ bytes: inout [UInt8], _ insert: [UInt8], _ random: inout SeededRandom) {
        let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
        let at = quotes.isEmpty ? 0 : quotes[random.below(quotes.count)] + 1
        bytes.insert(contentsOf: insert, at: min(at, bytes.count))
    }
}

extension NativeFuzz {
    /// What became of a run of messages.
    package struct Tally: Sendable, Equatable {
        package var sent = 0
        /// Messages the handler answered (a reply, or an error frame for one it could not read).
        package var answered = 0
        /// Valid messages answered normally.
        package var applied = 0
        /// Invalid messages answered with an error, every file unchanged.
        package var rejected = 0
        /// Of those, the ones refused before the handler's validator saw them: frames that are
        /// not JSON at all (truncated, invalid UTF-8, raw NUL bytes, nesting past the limit).
        package var refusedAsFrames = 0
        /// Messages judged wrongly handled, and the first few of them.
        package var wrong = 0
        package var examples: [String] = []

        package init() {}

        package mutating func add(_ other: Tally) {
            sent += other.sent
            answered += other.answered
            applied += other.applied
            rejected += other.rejected
            refusedAsFrames += other.refusedAsFrames
            wrong += other.wrong
            examples += other.examples.prefix(max(0, 5 - examples.count))
        }

        package var json: JSONValue {
            .object(["sent": .integer(Int64(sent)), "answered": .integer(Int64(answered)), "applied": .integer(Int64(applied)),
                     "rejected": .integer(Int64(rejected)), "refusedAsFrames": .integer(Int64(refusedAsFrames)), "wrong": .integer(Int64(wrong)), "examples": .array(examples.map(JSONValue.string))])
        }

        package init?(_ json: JSONValue) {
            guard case .object(let members) = json else { return nil }
            func count(_ name: String) -> Int? { if case .integer(let value)? = members[name] { Int(value) } else { nil } }
            guard let sent = count("sent"), let answered = count("answered"), let applied = count("applied"),
                  let rejected = count("rejected"), let frames = count("refusedAsFrames"), let wrong = count("wrong") else { return nil }
            (self.sent, self.answered, self.applied, self.rejected, self.refusedAsFrames, self.wrong) = (sent, answered, applied, rejected, frames, wrong)
            if case .array(let items)? = members["examples"] { examples = items.compactMap { if case .string(let text) = $0 { text } else { nil } } }
        }
    }

    /// The input frame that carries `message` to the handler, its bytes spliced in as they are.
    static func frame(_ message: [UInt8]) -> [UInt8] {
        Array("{\"kind\":\"input\",\"now\":\(now),\"uptime\":0,\"seed\":1,\"flaws\":[],\"input\":{\"type\":\"requestArrived\",\"message\":".utf8)
            + message + Array("}}".utf8)
    }

    /// How the handler answered one frame: its reply message, an error frame, or nothing.
    enum Answer: Sendable, Equatable {
        case reply(JSONValue)
        case errorFrame(String)
        case none(String)
    }

    /// Judges one message: how it was answered and the container's files before and after.
    static func judge(_ mutant: Mutant, index: Int, answer: Answer, before: [String: [UInt8]], after: [String: [UInt8]], into tally: inout Tally) {
        tally.sent += 1
        var problem: String?
        var rejected = false
        switch answer {
        case .none(let why): problem = "no answer (\(why))"
        case .errorFrame: rejected = true
        case .reply(let reply): rejected = reply.objectValue?["type"] == .string("error")
        }
        if case .none = answer {} else { tally.answered += 1 }
        if problem == nil {
            if mutant.valid {
                if rejected {
                    problem = "a valid message was refused: \(answer)"
                } else if case .reply(let reply) = answer, let wrong = effectProblem(mutant.bytes, reply: reply, before: before, after: after) {
                    problem = wrong
                } else {
                    tally.applied += 1
                }
            } else if !rejected {
                problem = "an invalid message was accepted: \(answer)"
            } else if before != after {
                problem = "an invalid message changed the files"
            } else {
                tally.rejected += 1
                if case .errorFrame = answer { tally.refusedAsFrames += 1 }
            }
        }
        if let problem {
            tally.wrong += 1
            if tally.examples.count < 5 {
                let shown = String(decoding: mutant.bytes.prefix(160), as: UTF8.self)
                tally.examples.append("#\(index) \(mutant.kind): \(problem); message \(shown)")
            }
        }
    }

    /// What is wrong with the effect of a valid message (nil: nothing), stated from the
    /// message and the sample document alone: the reply's type, the revision, and each field.
    static func effectProblem(_ bytes: [UInt8], reply: JSONValue, before: [String: [UInt8]], after: [String: [UInt8]]) -> String? {
        guard case .object(let message)? = try? JSONParser.parse(bytes), case .string(let type)? = message["type"] else { return "unreadable valid message" }
        guard let stored = after[FileContainer.documentName], let document = try? DocumentCodec.decode(stored).document else {
            return "no readable document after a valid message"
        }
        let answer = reply.objectValue ?? [:]
        let unchanged = before == after
        switch type {
        case "getSnapshot":
            var notModified = false
            if case .object(let known)? = message["known"] {
                notModified = known["documentId"] == .string("FUZZ-1") && known["revision"] == .integer(revision)
            }
            guard answer["type"] == .string(notModified ? "notModified" : "snapshot") else { return "answered \(reply) to \(type)" }
            return unchanged ? nil : "a read changed the files"
        case "getEnabled":
            // The sample's default mode is the built-in auto: not enabled.
            guard answer["type"] == .string("enabled"), answer["enabled"] == .bool(false) else { return "answered \(reply) to getEnabled" }
            return unchanged ? nil : "a read changed the files"
        case "toggleEnabled":
            guard answer["type"] == .string("enabled"), answer["enabled"] == .bool(true) else { return "answered \(reply) to toggleEnabled" }
            return document.defaults.mode == .on && document.revision == revision + 1 ? nil : "the toggle did not turn the default mode on"
        default:
            guard answer["type"] == .string("applied"), case .bool(let changed)? = answer["changed"],
                  answer["revision"] == .integer(document.revision), document.revision == revision + (changed ? 1 : 0) else {
                return "answered \(reply) to \(type) with the document at revision \(document.revision)"
            }
            if !changed && !unchanged { return "the files changed though the answer says nothing did" }
            guard case .string(let written)? = message["scope"], let key = canonicalScopes.first(where: { $0.key == written })?.value,
                  case .integer(let at)? = message["at"] else { return "unreadable valid message" }
            var expected: [String: String?] = [:]
            if type == "deleteSite" {
                for field in ["mode", "theme", "nativeDarkPolicy"] { expected[field] = String?.none }
            } else {
                for (field, value) in message["set"]?.objectValue ?? [:] { if case .string(let text) = value { expected[field] = text } }
                if case .array(let names)? = message["reset"] { for case .string(let field) in names { expected[field] = String?.none } }
            }
            let record = document.sites[try! ScopeKey.parse(key)]?.values
            let actual: [String: String?] = ["mode": record?.mode?.rawValue, "theme": record?.theme?.rawValue,
                                             "nativeDarkPolicy": record?.nativeDarkPolicy?.rawValue]
            for (field, value) in expected {
                // The sample's own values were written at `written`; an older edit loses to them
                // (at the same instant the extension's edit wins over the imported value).
                let old = sampleSites[key]?[field]
                let wins = old == nil || at >= Self.written
                let want = wins ? value : old!
                if actual[field]! != want { return "\(key) \(field) is \(actual[field]!.map { $0 } ?? "absent"), expected \(want ?? "absent")" }
            }
            return nil
        }
    }

    /// Messages `from..<from+count` of the seed's sequence through the handler's own frame
    /// handling, in this process, each against a fresh copy of the document.
    package static func runInProcess(seed: UInt64, from: Int, count: Int, progress: ((Int) -> Void)? = nil) -> Tally {
        var tally = Tally()
        for index in from..<(from + count) {
            let mutant = mutant(seed: seed, index: index)
            let before = [FileContainer.documentName: document]
            var executor = ContainerExecutor(storage: SimulatedContainer(files: before), gate: RecordingGate())
            let answer: Answer
            do {
                let message = try ToChild.decode(frame(mutant.bytes), role: .handler)
                switch NativeHandlerShell.respond(to: message, on: &executor).0 {
                case .done(.handler(let directives), _):
                    let reply = directives.lazy.compactMap { if case .reply(let reply) = $0 { reply.json } else { nil } }.first
                    answer = reply.map(Answer.reply) ?? .none("a done frame without a reply")
                case .error(let text): answer = .errorFrame(text)
                case let other: answer = .none("unexpected frame \(other)")
                }
            } catch {
                // The handler's gate answers a frame it cannot read with an error frame.
                answer = .errorFrame(error.description)
            }
            judge(mutant, index: index, answer: answer, before: before, after: executor.storage.files, into: &tally)
            if let progress, (index - from + 1) % 10_000 == 0 { progress(index - from + 1) }
        }
        return tally
    }
}
