import Foundation
import ProcessKit
import SiteSettings

/// A team's own native handler, its Swift sources as they ship (`class SafariWebExtensionHandler:
/// NSObject, NSExtensionRequestHandling`), built to play the handler role: `swiftc` compiles
/// them with stand-ins for what they import from Apple's systems (`SafariServices`, `os.log`,
/// in `Handler/Support`, the target's resources) and a `main` that speaks the frame protocol and
/// hands each request to the principal class. Builds are cached by their inputs' contents, beside
/// the executables.
package enum TeamHandler {
    /// The class the generated `main` makes for each request, unless the sources' `Info.plist`
    /// or `--handler-class` names another.
    static let defaultPrincipalClass = "SafariWebExtensionHandler"

    /// Why a handler could not be built.
    package enum BuildError: Error, CustomStringConvertible {
        /// A source named is not there, or holds no Swift file.
        case noSources(String)
        /// `swiftc` is not on PATH or beside the toolchain.
        case noCompiler
        /// The stand-ins are not beside the executable.
        case missingSupport(String)
        /// swiftc refused the sources: what it printed, paths as they were given, and why, when
        /// the sources use what Linux cannot give.
        case compile(String, unavailable: [String])
        /// A file could not be written or read in the cache.
        case io(String)

        package var description: String {
            switch self {
            case .noSources(let path): "\(path): no Swift source there (name a .swift file or a folder holding some)"
            case .noCompiler: "swiftc is not on PATH: the team's handler cannot be built"
            case .missingSupport(let folder): "the handler's stand-ins are not in \(folder): they are built beside the harness (swift build), which must run from there"
            case .compile(let output, let unavailable):
                output + unavailable.map { "\n" + $0 }.joined() + "\nthe team's handler did not build (above, as swiftc says it); nothing was run"
            case .io(let problem): "the handler's build cache: \(problem)"
            }
        }
    }

    /// Where builds are cached: beside the running executable.
    package static var cacheFolder: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("team-handlers").path
    }

    /// The stand-ins' folder beside the running executable.
    static var supportFolder: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("SafariExtensionLifecycle_HarnessCore.resources/Support").path
    }

    /// The Swift files `paths` name (files, or folders searched for them), in a stable order,
    /// with the `NSExtensionPrincipalClass` of an `Info.plist` among them, if one names it.
    static func sources(_ paths: [String]) throws(BuildError) -> (files: [String], principalClass: String?) {
        var files: [String] = [], principal: String?
        let manager = FileManager.default
        for path in paths {
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isFolder) else { throw .noSources(path) }
            let found: [String]
            if isFolder.boolValue {
                let names = (manager.enumerator(atPath: path)?.allObjects as? [String] ?? []).sorted()
                found = names.filter { $0.hasSuffix(".swift") }.map { path + "/" + $0 }
                for plist in names where plist.hasSuffix("Info.plist") {
                    principal = principal ?? principalClass(inPlist: path + "/" + plist)
                }
            } else {
                found = path.hasSuffix(".swift") ? [path] : []
            }
            guard !found.isEmpty else { throw .noSources(path) }
            files += found
        }
        return (files, principal)
    }

    /// The principal class an extension's `Info.plist` names (`NSExtension` →
    /// `NSExtensionPrincipalClass`), its module prefix dropped (`$(PRODUCT_MODULE_NAME).Handler`).
    static func principalClass(inPlist path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path),
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let name = (plist["NSExtension"] as? [String: Any])?["NSExtensionPrincipalClass"] as? String else { return nil }
        return String(name.split(separator: ".").last ?? Substring(name))
    }

    /// What Linux cannot give a handler, by the words that use it, and why.
    static let unavailable: [(word: String, why: String)] = [
        ("import UIKit", "UIKit is not provided: the harness builds the handler on Linux"),
        ("import AppKit", "AppKit is not provided: the harness builds the handler on Linux"),
        ("@objc", "@objc needs the Objective-C runtime, which Linux does not have"),
        ("#selector", "#selector needs the Objective-C runtime, which Linux does not have"),
    ]

    /// The lines of `files` that build differently here than on Apple's systems, each as
    /// `FILE:LINE: warning: …`: `#if os(iOS)` and `#if os(macOS)` are false on Linux, so what
    /// they hold is left out.
    package static func warnings(_ paths: [String]) -> [String] {
        guard let files = try? sources(paths).files else { return [] }
        var warnings: [String] = []
        for file in files {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("#if") || trimmed.hasPrefix("#elseif"), trimmed.contains("os(iOS)") || trimmed.contains("os(macOS)") else { continue }
                warnings.append("\(file):\(index + 1): warning: '\(trimmed)' is false on Linux, where the harness builds the handler: what it holds is left out")
            }
        }
        return warnings
    }

    /// Builds the handler from `paths` (Swift files, or folders holding them) into the cache in
    /// `cacheFolder`, unless a build of the same inputs is there; returns the executable.
    /// `principalClass` overrides the one an `Info.plist` names.
    package static func build(_ paths: [String], principalClass: String? = nil, cacheFolder: String) throws(BuildError) -> String {
        let (files, named) = try sources(paths)
        let principal = principalClass ?? named ?? defaultPrincipalClass
        let support = supportFolder
        let supportFiles = ["SafariServices.swift", "os.swift", "main.swift", "os/module.modulemap", "os/log.h"]
        guard supportFiles.allSatisfy({ FileManager.default.fileExists(atPath: support + "/" + $0) }) else { throw .missingSupport(support) }
        guard let swiftc = ExtensionRuntime.tool("swiftc") else { throw .noCompiler }

        // The cache key: every input's name and contents, and the principal class.
        var digest = Digest()
        digest.add(principal)
        for file in supportFiles.map({ support + "/" + $0 }) + files {
            digest.add(file.hasPrefix(support) ? String(file.dropFirst(support.count)) : file)
            digest.add(FileManager.default.contents(atPath: file) ?? Data())
        }
        let folder = cacheFolder + "/" + digest.hex
        let executable = folder + "/handler"
        if FileManager.default.isExecutableFile(atPath: executable) { return executable }

        let scratch = cacheFolder + "/building-\(UUID().uuidString)"
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            try "// Generated by the harness: the principal class the handler role makes for each request.\nimport SafariServices\n\nfunc makePrincipal() -> NSExtensionRequestHandling { \(principal)() }\n"
                .write(toFile: scratch + "/principal.swift", atomically: true, encoding: .utf8)
        } catch {
            throw .io("\(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let modules = ["-I", scratch, "-I", support + "/os", "-L", scratch]
        try compile(swiftc, ["-parse-as-library", "-emit-module", "-emit-library", "-static", "-module-name", "SafariServices",
                             support + "/SafariServices.swift", "-emit-module-path", scratch + "/SafariServices.swiftmodule",
                             "-o", scratch + "/libSafariServices.a"])
        try compile(swiftc, ["-parse-as-library", "-emit-module", "-emit-library", "-static", "-module-name", "os", "-import-underlying-module",
                             "-I", support + "/os", "-I", scratch, support + "/os.swift", "-emit-module-path", scratch + "/os.swiftmodule",
                             "-o", scratch + "/libos.a"])
        // The stand-in's types are visible in every file, as on Apple's systems, where
        // Foundation brings them.
        do {
            try compile(swiftc, modules + ["-lSafariServices", "-los", "-Xfrontend", "-import-module", "-Xfrontend", "SafariServices",
                                           "-module-name", "TeamHandler"] + files + [support + "/main.swift", scratch + "/principal.swift", "-o", scratch + "/handler"])
        } catch .compile(let output, _) {
            let texts = files.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
            throw .compile(output, unavailable: unavailable.filter { item in texts.contains { $0.contains(item.word) } }.map(\.why))
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: scratch + "/handler", toPath: executable)
        } catch {
            // Another run built the same inputs meanwhile (runs side by side): its build is this one.
            guard FileManager.default.isExecutableFile(atPath: executable) else { throw .io("\(error)") }
        }
        return executable
    }

    /// Runs swiftc with `arguments`; what it prints is the error when it fails.
    private static func compile(_ swiftc: String, _ arguments: [String]) throws(BuildError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swiftc)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { throw .io("swiftc could not be started: \(error)") }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .compile(String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), unavailable: [])
        }
    }

    /// FNV-1a over the inputs, two lanes: enough to tell builds apart in a cache.
    struct Digest {
        private var lanes: (UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4)

        mutating func add(_ text: String) { add(Data(text.utf8)) }

        mutating func add(_ data: Data) {
            for byte in data {
                lanes.0 = (lanes.0 ^ UInt64(byte)) &* 0x100_0000_01b3
                lanes.1 = (lanes.1 ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            // A separator, so that ("ab", "c") and ("a", "bc") differ.
            lanes.0 = (lanes.0 ^ 0xff) &* 0x100_0000_01b3
            lanes.1 = (lanes.1 ^ 0xfe) &* 0x100_0000_01b3
        }

        var hex: String { String(lanes.0, radix: 16) + String(lanes.1, radix: 16) }
    }
}
