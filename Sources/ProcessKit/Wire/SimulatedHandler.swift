public struct SimulatedHandler: SteppedProcess {
    private var shell: SteppedShell<ContainerCore<NativeHandlerMachine, SimulatedContainer>>

    /// `reuse`: it serves requests in turn, as a process the system keeps does.
    public init(storage: SimulatedContainer, reuse: Bool = false) { shell = NativeHandlerShell.stepped(storage: storage, reuse: reuse) }

    public mutating func take(_ message: ToChild) -> FromChild { shell.take(message) }
    public var ended: Bool { shell.ended }
}
