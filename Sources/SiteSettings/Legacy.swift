/// Seed 000's protocol: one boolean, `colorInvertEnabled`, in the App Group's preferences, read
/// with `getEnabled` and flipped with `toggleEnabled`. The new model keeps answering both for an
/// extension not yet updated, and migrates the boolean on first launch.
public enum Legacy {
    /// The preferences key the first version stored.
    public static let enabledKey = "colorInvertEnabled"

    /// The first document of a user of the old version: on becomes mode on with the invert
    /// theme (the only theme the old version had), off becomes mode off with the same theme.
    /// The stamps are `imported` at the migration time so any real edit wins over them. The
    /// revision is 0: the write that first stores the document makes it 1.
    public static func migrate(colorInvertEnabled enabled: Bool, at time: EpochMillis, documentId: String) -> SettingsDocument {
        var defaults = Defaults.builtIn
        defaults.mode = enabled ? .on : .off
        defaults.theme = .invert
        defaults.changedAt = [.mode: Stamp(at: time), .theme: Stamp(at: time)]
        return SettingsDocument(documentId: documentId, revision: 0, defaults: defaults)
    }

    /// `getEnabled`: whether the effective default mode is on.
    public static func isEnabled(_ document: SettingsDocument) -> Bool {
        document.defaults.mode == .on
    }

    /// `toggleEnabled`: the edit that flips `defaults.mode` between on and off (any mode other
    /// than on counts as off, so it becomes on).
    public static func toggle(_ document: SettingsDocument, stamp: Stamp) -> Edit {
        .setDefaults(DefaultsValues(mode: isEnabled(document) ? .off : .on), stamp: stamp)
    }
}
