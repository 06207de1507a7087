import SiteSettings

extension AppShell {
    /// The app's shell, stepped: the same reading of inputs and the same directives as `serve`.
    public static func core<Storage: ContainerStorage>(storage: Storage) -> ContainerCore<AppMachine, Storage> {
        ContainerCore(machine: AppMachine(), storage: storage, servesOnce: false, prepare: { json, now, seed, flaws, machine, executor in
            prepare(json, now: now, seed: seed, flaws: flaws, machine: &machine, executor: &executor)
        }, travel: { .app($0.compactMap(AppWire.output)) })
    }

    public static func stepped<Storage: ContainerStorage>(storage: Storage) -> SteppedShell<ContainerCore<AppMachine, Storage>> {
        SteppedShell(core(storage: storage))
    }
}
