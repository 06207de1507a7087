/// The three shells on the simulated disk, for the in-process transport. Each is made and run
/// here, where all its types are known, so that the harness (another module, which cannot
/// specialise this module's generic shells) still runs code compiled for them.
public struct SimulatedApp: SteppedProcess {
    private var shell: SteppedShell<ContainerCore<AppMachine, SimulatedContainer>>

    public init(storage: SimulatedContainer) { shell = AppShell.stepped(storage: storage) }

    public mutating func take(_ message: ToChild) -> FromChild { shell.take(message) }
    public var ended: Bool { shell.ended }
}
