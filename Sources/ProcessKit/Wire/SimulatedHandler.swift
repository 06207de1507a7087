public struct SimulatedHandler: SteppedProcess {
    private var shell: SteppedShell<ContainerCore<NativeHandlerMachine, SimulatedContainer>>

    public init(storage: SimulatedContainer) { shell = NativeHandlerShell.stepped(storage: storage) }

    public mutating func take(_ message: ToChild) -> FromChild { shell.take(message) }
    public var ended: Bool { shell.ended }
}
