import ProcessKit
import SiteSettings

/// SplitMix64: a small seeded generator, so that a value a test reports can be made again from
/// its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random values of everything that travels between the harness and the processes, within what
/// each type can hold and its wire form can say.
struct WireSamples {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    // MARK: - Small pieces

    mutating func bool() -> Bool { Bool.random(using: &random) }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func int64(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &random) }
    mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &random)! }
    mutating func maybe<T>(_ make: (inout WireSamples) -> T) -> T? { bool() ? make(&self) : nil }

    /// Any time a document or a message may hold.
    mutating func time() -> EpochMillis { int64(0...DocumentCodec.latestTime) }
    /// A time an edit may carry (stored as milliseconds, never read as seconds).
    mutating func editTime() -> EpochMillis { int64(DocumentCodec.secondsThreshold...DocumentCodec.latestTime) }

    mutating func text() -> String {
        pick(["", "t1", "docs", "a b", "quote \" and \\ backslash", "tab\tnew\nline", "bücher", "日本語", "emoji 🌙", "\u{1}"])
    }

    mutating func tab() -> TabID { TabID(pick(["t1", "t2", "w2t3", "tab with space", "ü"])) }

    mutating func url() -> String {
        pick(["https://docs.example.com/guide", "http://a.b.Docs.Example.co.uk:8443/x/../guide?q#f", "about:blank",
              "https://bücher.example/", "not a url", ""])
    }

    mutating func mode() -> Mode { pick(Mode.allCases) }
    mutating func policy() -> NativeDarkPolicy { pick(NativeDarkPolicy.allCases) }
    mutating func appearance() -> Appearance { pick(Appearance.allCases) }
    mutating func source() -> ValueSource { pick(ValueSource.allCases) }
    mutating func knownTheme() -> Theme { pick(Theme.catalogue) }
    /// A theme a document may hold: one this version knows, or a newer one's.
    mutating func anyTheme() -> Theme { bool() ? knownTheme() : Theme(rawValue: pick(["midnight", "solarized", "Gray"])) }

    mutating func schedule() -> Schedule {
        Schedule(start: TimeOfDay(minutes: int(0...1439))!, end: TimeOfDay(minutes: int(0...1439))!)
    }

    /// A canonical key: host, domain or page.
    mutating func scopeKey() -> ScopeKey {
        try! ScopeKey.parse(pick(["docs.example.com", "studio.example", ".example.org", "example.net/tools/editor",
                                  "a.b.docs.example.co.uk/guide", ".example.co.uk", "192.0.2.1/a", "xn--bcher-kva.example"]))
    }

    /// A key as a user might type it: canonical or not, valid or not.
    mutating func typedScope() -> String {
        pick(["docs.example.com", "Docs.Example.COM.", "a.example/x/../y", "bücher.example", ".example.org",
              ".co.uk", "has?query", "", "not a key"])
    }

    /// Some fields, each at most once, in any order.
    mutating func fields() -> [SiteField] {
        Array(SiteField.allCases.shuffled(using: &random).prefix(int(0...SiteField.allCases.count)))
    }

    mutating func siteValues(anyTheme: Bool = false) -> SiteValues {
        SiteValues(mode: maybe { $0.mode() }, theme: maybe { anyTheme ? $0.anyTheme() : $0.knownTheme() },
                   nativeDarkPolicy: maybe { $0.policy() })
    }

    mutating func defaultsValues() -> DefaultsValues {
        DefaultsValues(mode: maybe { $0.mode() }, theme: maybe { $0.knownTheme() }, nativeDarkPolicy: maybe { $0.policy() },
                       schedule: maybe { $0.schedule() })
    }

    /// Any JSON a peer could send: nested objects and arrays of strings, integers, booleans and null.
    mutating func json(depth: Int = 3) -> JSONValue {
        switch int(0...(depth > 0 ? 6 : 4)) {
        case 0: return .null
        case 1: return .bool(bool())
        case 2: return .integer(int64(Int64.min...Int64.max))
        case 3: return .string(text())
        case 4: return .string(pick(["snapshot", "applied", "error", "notModified"]))
        case 5: return .array((0..<int(0...3)).map { _ in json(depth: depth - 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<int(0...4) { members[pick(["type", "document", "code", "message", "revision", "ü", "a b"])] = json(depth: depth - 1) }
            return .object(members)
        }
    }

    // MARK: - Documents and payloads

    /// A document as processes write it: built by edits, so it is normalized.
    mutating func document() -> SettingsDocument {
        var document = SettingsDocument(documentId: maybe { "doc-\($0.int(0...999))" }, revision: int64(0...1000))
        for _ in 0..<int(0...6) {
            let stamp = Stamp(at: editTime(), origin: pick(EditOrigin.allCases), edit: UInt64(int64(0...Int64.max)))
            let edit: Edit = switch int(0...2) {
            case 0: .setDefaults(defaultsValues(), stamp: stamp)
            case 1: .changeSite(scopeKey(), set: siteValues(anyTheme: true), reset: fields(), stamp: stamp)
            default: .deleteSite(scopeKey(), stamp: stamp)
            }
            _ = try? document.apply(edit)
        }
        return document
    }

    mutating func version() -> DocumentVersion {
        DocumentVersion(documentId: pick(["doc-1", "94899342-6212-4B14-A579-6740AE068B63", "unsaved"]), revision: int64(0...Int64.max))
    }

    mutating func settings() -> EffectiveSettings {
        var settings = Self.template.settings
        settings.mode = mode()
        settings.theme = anyTheme()
        settings.nativeDarkPolicy = policy()
        settings.schedule = schedule()
        settings.scope = maybe { $0.scopeKey() }
        settings.modeSource = source()
        settings.themeSource = source()
        settings.nativeDarkPolicySource = source()
        return settings
    }

    mutating func decision() -> Decision {
        var decision = Self.template
        decision.enabled = bool()
        decision.reason = pick(DecisionReason.allCases)
        decision.settings = settings()
        return decision
    }

    mutating func popupView() -> PopupView {
        let supported = bool()
        return PopupView(tab: tab(), url: url(), unsupported: !supported, scopes: (0..<int(0...3)).map { _ in scopeKey() },
                         selectedScope: maybe { $0.scopeKey() }, settings: supported ? settings() : nil,
                         pausedUntil: maybe { $0.time() })
    }

    mutating func appView() -> AppView {
        let defaults = Defaults(mode: mode(), theme: anyTheme(), nativeDarkPolicy: policy(), schedule: schedule())
        let sites = (0..<int(0...3)).map { _ in
            SiteSummary(key: scopeKey(), overrides: siteValues(anyTheme: true), inherited: fields(), redundant: fields())
        }
        return AppView(documentId: maybe { "doc-\($0.int(0...999))" }, revision: int64(0...Int64.max), readOnly: bool(),
                       defaults: defaults, sites: sites)
    }

    mutating func reply() -> NativeReply {
        switch int(0...4) {
        case 0: .snapshot(document())
        case 1: .notModified(version())
        case 2: .applied(maybe { $0.version() }, changed: bool())
        case 3: .enabled(bool())
        default: .error(pick(NativeErrorCode.allCases), text())
        }
    }

    /// A request as the extension sends it; its stamps are the extension's.
    mutating func request() -> NativeRequest {
        let stamp = Stamp(at: int64(Int64.min...Int64.max), origin: .extension, edit: random.next())
        return switch int(0...5) {
        case 0: .getSnapshot(known: maybe { $0.version() })
        case 1: .patch(scope: scopeKey(), set: siteValues(anyTheme: true), reset: fields(), stamp: stamp)
        case 2: .deleteSite(scope: scopeKey(), stamp: stamp)
        case 3: .getEnabled
        case 4: .toggleEnabled
        default: .putDocument(document())
        }
    }

    /// A decision to overwrite member by member (`SiteSettings` builds them only by resolving).
    static let template = Resolver(document: SettingsDocument()).decide(url: "", context: DecisionContext(now: 0))
}

/// The JSON as it crosses a pipe: written compactly and parsed again.
func throughBytes(_ json: JSONValue) throws -> JSONValue {
    try JSONParser.parse(JSONWriter.compact(json))
}

/// The problem a decoder reports, or nil when it reads the JSON.
func failure<T>(_ read: () throws -> T) -> String? {
    do {
        _ = try read()
        return nil
    } catch let error as NativeMessageError {
        return error.description
    } catch {
        return "not a NativeMessageError: \(error)"
    }
}

/// JSON written by hand in a test.
func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }
