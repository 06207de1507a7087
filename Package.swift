// swift-tools-version: 6.0
import PackageDescription

// The three process executables are started once per event (the native handler once per
// request), so they and everything they link import at most FoundationEssentials and use no
// bundle resources. They link the standard library statically: they start faster and each
// keeps only the pages it uses resident (about 5.5 MiB against 9 MiB dynamically linked).
let processLinking: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"])]

// A release build does not check exclusive access at run time (a debug build, which the tests
// use, does): the explorer's inner loop spent about one instruction in thirty on those checks.
let releaseSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "SafariExtensionLifecycle",
    products: [
        .executable(name: "harness", targets: ["Harness"]),
        .library(name: "SiteSettings", targets: ["SiteSettings"]),
        // The frame protocol's types, for a process of one's own written in Swift.
        .library(name: "ProcessKit", targets: ["ProcessKit"]),
    ],
    targets: [
        .target(name: "SiteSettings", exclude: ["generate-public-suffix-data.py"], swiftSettings: releaseSettings),
        .target(name: "ProcessKit", dependencies: ["SiteSettings"], exclude: ["PROTOCOL.md"], swiftSettings: releaseSettings),
        // The JavaScript runtime's files are resources, copied beside the executables
        // (`ExtensionRuntime.folder`), where node runs them; so are the stand-ins a team's native
        // handler is built with (`TeamHandler`), which swiftc compiles there.
        .target(name: "HarnessCore", dependencies: ["SiteSettings", "ProcessKit"],
                resources: [.copy("Extension/JavaScript"), .copy("Handler/Support")], swiftSettings: releaseSettings),
        .executableTarget(name: "AppProcess", dependencies: ["ProcessKit"], linkerSettings: processLinking),
        .executableTarget(name: "ExtensionProcess", dependencies: ["ProcessKit"], linkerSettings: processLinking),
        .executableTarget(name: "NativeHandler", dependencies: ["ProcessKit"], linkerSettings: processLinking),
        .executableTarget(
            name: "Harness",
            // The process executables are dependencies so that `swift run harness` builds them
            // and they land next to it.
            dependencies: ["SiteSettings", "ProcessKit", "HarnessCore", "AppProcess", "ExtensionProcess", "NativeHandler"],
            swiftSettings: releaseSettings
        ),
        // A small child process for the runtime's own tests: echoes frames, writes to stderr, exits on request.
        .executableTarget(name: "EchoChild", dependencies: ["ProcessKit"], path: "Tests/Support/EchoChild"),
        // Fixtures are read beside the test files.
        .testTarget(name: "SiteSettingsTests", dependencies: ["SiteSettings"], exclude: ["Fixtures"]),
        .testTarget(name: "ProcessKitTests", dependencies: ["ProcessKit"]),
        // Tests find the executables next to the test bundle; `swift test` builds every executable first.
        .testTarget(name: "HarnessCoreTests", dependencies: ["ProcessKit", "HarnessCore"], exclude: ["Fixtures"]),
        .testTarget(name: "HarnessTests", dependencies: ["SiteSettings", "ProcessKit", "HarnessCore"], exclude: ["Fixtures"]),
    ]
)
