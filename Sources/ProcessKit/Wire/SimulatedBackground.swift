public struct SimulatedBackground: SteppedProcess {
    private var shell: SteppedShell<BackgroundCore<SimulatedExtensionFolder>>

    public init(files: SimulatedExtensionFolder) { shell = ExtensionShell.stepped(files: files) }

    public mutating func take(_ message: ToChild) -> FromChild { shell.take(message) }
    public var ended: Bool { shell.ended }
}
