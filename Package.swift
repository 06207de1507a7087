// swift-tools-version: 6.0
import PackageDescription

// The three process executables are started once per event (the native handler once per
// request), so they and everything they link import at most FoundationEssentials and use no
// bundle resources. The handler also links the standard library statically.
let package = Package(
    name: "SafariExtensionLifecycle",
    products: [
        .executable(name: "harness", targets: ["Harness"]),
        .library(name: "SiteSettings", targets: ["SiteSettings"]),
    ],
    targets: [
        .target(name: "SiteSettings", exclude: ["generate-public-suffix-data.py"]),
        .executableTarget(name: "AppProcess", dependencies: ["SiteSettings"]),
        .executableTarget(name: "ExtensionProcess", dependencies: ["SiteSettings"]),
        .executableTarget(
            name: "NativeHandler",
            dependencies: ["SiteSettings"],
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]
        ),
        .executableTarget(
            name: "Harness",
            // The process executables are dependencies so that `swift run harness` builds them
            // and they land next to it.
            dependencies: ["SiteSettings", "AppProcess", "ExtensionProcess", "NativeHandler"]
        ),
        .testTarget(name: "SiteSettingsTests", dependencies: ["SiteSettings"]),
        .testTarget(name: "HarnessTests", dependencies: ["SiteSettings"]),
    ]
)
