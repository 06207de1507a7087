/// The harness's version, as `harness --version` prints it.
enum HarnessVersion {
    static let current = "0.27.0"
}
