/// An extension's version as a manifest writes it: one to four numbers from 0 to 65535 joined by
/// dots (the WebExtensions rule Safari follows). WebKit sees an update only when the version
/// changes (`WebExtensionContext::determineInstallReasonDuringLoad` compares it with the last seen).
struct ExtensionVersion: Equatable, Sendable {
    let numbers: [Int]

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 5, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber), let number = Int(part), number <= 65_535 else { return nil }
            numbers.append(number)
        }
        self.numbers = numbers
    }

    var text: String { numbers.map(String.init).joined(separator: ".") }

    /// The version a plain `safari update-extension` installs: the last number one higher
    /// (1.0 -> 1.1), or a number more when it is at its largest (1.65535 -> 1.65535.1).
    var next: ExtensionVersion {
        var numbers = numbers
        if numbers[numbers.count - 1] < 65_535 { numbers[numbers.count - 1] += 1 } else if numbers.count < 4 { numbers.append(1) }
        return ExtensionVersion(numbers: numbers)
    }

    private init(numbers: [Int]) { self.numbers = numbers }

    /// The version a plain update installs after `installed` (one the manifest writes another
    /// way than this rule: with ".1" added).
    static func following(_ installed: String) -> String {
        ExtensionVersion(installed)?.next.text ?? installed + ".1"
    }

    /// The version a run starts with: the manifest's of the extension `background` runs (a
    /// scenario's, a probe's or the command's), or 1.0 for the built-in design's.
    static func installed(by background: ProcessExecutables.Command) -> String {
        let arguments = background.arguments
        guard let flag = arguments.firstIndex(of: "--extension"), flag + 1 < arguments.count,
              case .success(let loaded) = ExtensionManifest.load(folder: arguments[flag + 1]), !loaded.manifest.version.isEmpty else { return "1.0" }
        return loaded.manifest.version
    }

    /// Each `safari update-extension` of `scenario` installs another version than the one
    /// installed then: WebKit sees no update when the version stays (`determineInstallReasonDuringLoad`).
    static func checkUpdates(in scenario: Scenario, startingAt version: String) throws(ScenarioErrors) {
        var installed = version
        for line in scenario.lines {
            guard case .safari(.updateExtension(let version)) = line.step else { continue }
            let next = version ?? following(installed)
            if next == installed {
                throw ScenarioErrors([ScenarioError(file: scenario.name, line: line.number, message:
                    "\(line.text): version \(installed) is installed already, and Safari sees an update only when the version changes")])
            }
            installed = next
        }
    }
}
