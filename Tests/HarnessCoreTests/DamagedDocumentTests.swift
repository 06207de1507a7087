@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// A shared document cut off at every byte offset, and with random bytes changed: the handler
/// and the app set it aside, recover from the last good copy (under a new id), and never write
/// over it without keeping the damaged bytes.
struct DamagedDocumentTests {
    static let now: EpochMillis = 1_783_940_000_000

    /// The last good copy: defaults, three kinds of scope and a tombstone.
    static let good: SettingsDocument = {
        var document = SettingsDocument(documentId: "GOOD-1", revision: 42)
        document.defaults.mode = .auto
        document.defaults.theme = .gray
        let stamp = Stamp(at: 1_783_936_800_000)
        document.sites[try! ScopeKey.parse("docs.example.com")] = SiteRecord(values: SiteValues(theme: .sepia), changedAt: [.theme: stamp])
        document.sites[try! ScopeKey.parse(".example.org")] = SiteRecord(values: SiteValues(mode: .off), changedAt: [.mode: stamp])
        document.sites[try! ScopeKey.parse("example.net/tools/editor")] = SiteRecord(values: SiteValues(nativeDarkPolicy: .override),
                                                                                      changedAt: [.nativeDarkPolicy: stamp])
        document.tombstones[try! ScopeKey.parse("studio.example")] = [.mode: stamp, .theme: stamp, .nativeDarkPolicy: stamp]
        return document
    }()
    static let goodBytes = DocumentCodec.encode(good)

    private func container(_ damaged: [UInt8]) -> SimulatedContainer {
        SimulatedContainer(files: [FileContainer.documentName: damaged, FileContainer.previousName: Self.goodBytes])
    }

    /// A patch through the handler; returns the container afterwards.
    private func handlerPatch(_ damaged: [UInt8]) throws -> SimulatedContainer {
        var executor = ContainerExecutor(storage: container(damaged), gate: RecordingGate())
        var machine = NativeHandlerMachine()
        let request = try JSONParser.parse(#"{"type": "patch", "scope": "a.example", "set": {"mode": "off"}, "at": 1783939999000, "edit": 1}"#)
        _ = machine.run(.requestArrived(request, now: Self.now, seed: 1), on: &executor)
        return executor.storage
    }

    /// The app's launch; returns the container afterwards.
    private func appLaunch(_ damaged: [UInt8]) -> SimulatedContainer {
        var executor = ContainerExecutor(storage: container(damaged), gate: RecordingGate())
        var machine = AppMachine()
        _ = machine.run(.launched(now: Self.now, seed: 1), on: &executor)
        return executor.storage
    }

    /// What is wrong with the container after a writer met `damaged` (nil: nothing).
    private func problem(_ storage: SimulatedContainer, damaged: [UInt8], patched: Bool) -> String? {
        let files = storage.files
        guard let bytes = files[FileContainer.documentName], let document = try? DocumentCodec.decode(bytes).document else {
            return "no readable document afterwards"
        }
        if let readable = try? DocumentCodec.decode(damaged) {
            // Still a document (a change inside a string, say): read as it is, never set aside.
            if readable.document.isReadOnly { return bytes == damaged ? nil : "a newer version's document was rewritten" }
            return files.keys.contains { $0.hasPrefix("settings.damaged") } ? "a readable document was set aside" : nil
        }
        guard files["settings.damaged-1.json"] == damaged else { return "the damaged bytes were not kept" }
        if document.documentId == Self.good.documentId { return "the recovered document kept the lost one's id" }
        var expected = Self.good
        if patched { expected.sites[try! ScopeKey.parse("a.example")] = SiteRecord(values: SiteValues(mode: .off), changedAt: [.mode: Stamp(at: 1_783_939_999_000, origin: .extension, edit: 1)]) }
        if document.sites != expected.sites || document.defaults != expected.defaults || document.tombstones != expected.tombstones {
            return "the recovered settings differ from the last good copy"
        }
        return nil
    }

    @Test func everyTruncationIsSetAsideAndTheLastGoodCopyRecovered() throws {
        let bytes = Self.goodBytes
        var problems: [String] = []
        for length in 0..<bytes.count {
            let damaged = Array(bytes[..<length])
            if let found = problem(try handlerPatch(damaged), damaged: damaged, patched: true) { problems.append("handler, \(length) bytes: \(found)") }
            if let found = problem(appLaunch(damaged), damaged: damaged, patched: false) { problems.append("app, \(length) bytes: \(found)") }
        }
        #expect(bytes.count > 400)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test func randomlyChangedBytesAreSetAsideOrReadAsTheyAre() throws {
        var random = SeededRandom(seed: 2026)
        var problems: [String] = []
        var setAside = 0
        for round in 0..<400 {
            var damaged = Self.goodBytes
            for _ in 0...random.below(3) {
                damaged[random.below(damaged.count)] = UInt8(truncatingIfNeeded: random.next())
            }
            if (try? DocumentCodec.decode(damaged)) == nil { setAside += 1 }
            if let found = problem(try handlerPatch(damaged), damaged: damaged, patched: true) { problems.append("handler, round \(round): \(found)") }
            if let found = problem(appLaunch(damaged), damaged: damaged, patched: false) { problems.append("app, round \(round): \(found)") }
        }
        #expect(setAside > 100, "too few of the changes made the document unreadable to test recovery")
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }
}
