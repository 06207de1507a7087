import SiteSettings

/// How far a shell's work for an input got: waiting at a yield point, or finished with the
/// frame that answers the input.
public enum ShellProgress {
    case waits(YieldPoint)
    case finished(FromChild)
}
