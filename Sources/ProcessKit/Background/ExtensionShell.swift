import SiteSettings

/// The background's process: runs until its input ends (an unload is a kill). Extension storage
/// is asynchronous, as `storage.local` is: the process does a load or save at once (stopping at
/// its yield points) and reports `storagePending`; the machine hears of the result only when the
/// harness sends `storageCompleted`, so other inputs can arrive in between.
public enum ExtensionShell {
    public static func main(arguments: [String]) -> Int32 {
        guard let (directory, free) = ChildExit.options(arguments, option: "--storage") else {
            ChildExit.printUsage("usage: ExtensionProcess --storage DIRECTORY [--free] (started by the harness, which speaks to it in frames)\n")
            return ChildExit.usage
        }
        return serve(gate: .standardStreams(free: free, role: .background),
                     files: ExtensionFolder(directory: directory))
    }

    /// The shell of the process: frames through `gate`, extension storage in `files` (the
    /// in-process transport steps the same work through `stepped`).
    public static func serve<Files: ExtensionFiles>(gate: WireGate, files: Files) -> Int32 {
        var gate = gate
        var core = BackgroundCore(files: files)
        core.serve(&gate)
        return ChildExit.harnessGone
    }

    /// The background's shell, stepped: the same reading of inputs and the same outputs as
    /// `serve`, one message at a time.
    public static func stepped<Files: ExtensionFiles>(files: Files) -> SteppedShell<BackgroundCore<Files>> {
        SteppedShell(BackgroundCore(files: files))
    }
}
