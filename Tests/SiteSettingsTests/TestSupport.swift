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

    /// A file of `Fixtures/` beside this one. A missing file is an error that fails the test.
    static func text(_ name: String) throws -> String {
        let testFile = #filePath
        let folder = testFile[..<(testFile.lastIndex(of: "/") ?? testFile.startIndex)]
        return try String(contentsOfFile: folder + "/Fixtures/" + name, encoding: .utf8)
    }
}
