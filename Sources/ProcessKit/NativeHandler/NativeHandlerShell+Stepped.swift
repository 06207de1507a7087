import SiteSettings

extension NativeHandlerShell {
    /// The handler's shell, stepped: the same request and reply as `respond`; with `reuse`, one
    /// request after another, its statics kept.
    public static func core<Storage: ContainerStorage>(storage: Storage, reuse: Bool = false) -> ContainerCore<NativeHandlerMachine, Storage> {
        ContainerCore(machine: NativeHandlerMachine(), storage: storage, servesOnce: !reuse, prepare: { json, now, seed, flaws, machine, executor in
            prepare(json, now: now, seed: seed, flaws: flaws, machine: &machine, executor: &executor)
        }, travel: { .handler($0.compactMap(NativeHandlerWire.output)) })
    }

    public static func stepped<Storage: ContainerStorage>(storage: Storage, reuse: Bool = false) -> SteppedShell<ContainerCore<NativeHandlerMachine, Storage>> {
        SteppedShell(core(storage: storage, reuse: reuse))
    }
}
