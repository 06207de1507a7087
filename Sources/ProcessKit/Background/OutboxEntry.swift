import SiteSettings

/// A popup change waiting for the handler's acknowledgement.
public struct OutboxEntry: Equatable, Sendable {
    public var edit: UInt64
    /// A `patch` or `deleteSite` request, stamped with the time of the user's action.
    public var request: NativeRequest
    /// The popup's number for the message that made it, to answer it if the handler refuses.
    public var message: Int

    public init(edit: UInt64, request: NativeRequest, message: Int = 0) {
        self.edit = edit
        self.request = request
        self.message = message
    }

    /// Whether this change, made later, sets or clears every field `earlier` does on the same
    /// record, so that `earlier` changes nothing once this one is applied.
    public func replaces(_ earlier: OutboxEntry) -> Bool {
        guard let mine = changed, let theirs = earlier.changed else { return false }
        return mine.scope == theirs.scope && theirs.fields.isSubset(of: mine.fields)
    }

    /// The record a patch or deletion changes, and the fields it sets or clears.
    private var changed: (scope: ScopeKey, fields: Set<SiteField>)? {
        switch request {
        case .patch(let scope, let set, let reset, _): (scope, Set(set.fields).union(reset))
        case .deleteSite(let scope, _): (scope, Set(SiteField.allCases))
        case .getSnapshot, .getEnabled, .toggleEnabled, .putDocument, .other: nil
        }
    }

    /// The same change as a model edit, for applying to the cache.
    public var modelEdit: Edit? {
        switch request {
        case .patch(let scope, let set, let reset, let stamp): .changeSite(scope, set: set, reset: reset, stamp: stamp)
        case .deleteSite(let scope, let stamp): .deleteSite(scope, stamp: stamp)
        case .getSnapshot, .getEnabled, .toggleEnabled, .putDocument, .other: nil
        }
    }
}
