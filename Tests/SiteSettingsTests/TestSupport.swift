import Foundation
@testable import SiteSettings

/// Builders that keep tests short.
enum Fixture {
    static func key(_ text: String) -> ScopeKey { try! ScopeKey.parse(text) }

    static func decode(_ json: String) throws -> SettingsDocument {
        try DocumentCodec.decode(Array(json.utf8)).document
    }

    static func app(_ at: EpochMillis, edit: UInt64 = 1) -> Stamp { Stamp(at: at, origin: .app, edit: edit) }
    static func popup(_ at: EpochMillis, edit: UInt64 = 1) -> Stamp { Stamp(at: at, origin: .extension, edit: edit) }

    static func set(_ key: String, _ values: SiteValues, _ stamp: Stamp) -> Edit {
        .changeSite(Fixture.key(key), set: values, reset: [], stamp: stamp)
    }

    static func reset(_ key: String, _ fields: [SiteField], _ stamp: Stamp) -> Edit {
        .changeSite(Fixture.key(key), set: SiteValues(), reset: fields, stamp: stamp)
    }

    /// The shape of the settings article's example: no schemaVersion, no documentId, record
    /// times in seconds.
    static let articleShape = """
        {"revision": 42,
         "defaults": {"mode": "auto", "theme": "gray", "nativeDarkPolicy": "respect",
                      "schedule": {"start": "20:00", "end": "06:00"}},
         "sites": {"docs.example.com": {"theme": "sepia", "modifiedAt": 1783936800},
                   "studio.example": {"mode": "off", "modifiedAt": 1783936920}}}
        """

    /// The first JSON object in the settings article, read from `../shared/seeds` beside the
    /// package when it is there (it is in CI), exactly as the article writes it.
    static func articleExampleFromSeed() -> String? {
        let testFile = #filePath
        guard let range = testFile.range(of: "/Tests/SiteSettingsTests/") else { return nil }
        let folder = String(testFile[..<range.lowerBound]) + "/../shared/seeds"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder),
              let name = names.first(where: { $0.hasPrefix("001_") }),
              let text = try? String(contentsOfFile: folder + "/" + name, encoding: .utf8) else { return nil }
        guard let start = text.firstIndex(of: "{") else { return nil }
        var depth = 0
        var index = start
        while index < text.endIndex {
            if text[index] == "{" { depth += 1 }
            if text[index] == "}" {
                depth -= 1
                if depth == 0 { return String(text[start...index]) }
            }
            index = text.index(after: index)
        }
        return nil
    }
}
