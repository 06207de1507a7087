import ProcessKit
import SiteSettings

/// Safari's permission prompts (`permissions.request`): the background, or one of the
/// extension's own pages, asks for optional permissions or host patterns the extension does not
/// hold yet, and Safari asks the user. The
/// user's answer (`permission grant`, `permission refuse`) goes to the oldest prompt; one left
/// unanswered for `permissionPromptTimeout` goes away, refused. While any prompt is pending,
/// Safari does not unload the background (`SAFARI.md`: `unloadBackgroundContentIfPossible`
/// postpones while a request is pending, `permissionRequestTimeout`), whoever asked. A prompt is
/// the extension's, not its asker's: the background or page that asked may go meanwhile, and
/// the answer then goes nowhere, though a grant is kept.
extension SafariMachine {
    /// How long a prompt waits for the user (WebKit's `permissionRequestTimeout`).
    static let permissionPromptTimeout: EpochMillis = 120_000

    /// Who asked: a background's call numbered `request`, or a page's numbered `id`.
    enum PermissionAsker: Equatable, Sendable {
        case background(incarnation: Int, request: Int)
        case page(PageHost.Page, id: Int)

        /// As the trace names it.
        var name: String {
            switch self {
            case .background(let incarnation, _): "background#\(incarnation)"
            case .page(let page, _): page.name
            }
        }
    }

    /// A prompt on screen: who asked, for what, and when Safari drops it.
    struct PermissionPrompt: Equatable, Sendable {
        var asker: PermissionAsker
        var permissions: [String]
        var origins: [String]
        var expires: EpochMillis

        /// What it asks for, as the trace says it.
        var asked: String { (permissions + origins).joined(separator: ", ") }
    }

    /// When the oldest prompt goes unanswered, if one is pending.
    var nextPromptExpiry: EpochMillis? { permissionPrompts.first?.expires }

    /// A background or a page asked for permissions the extension does not hold: Safari shows
    /// the prompt. A request for nothing is granted at once, with no prompt, and fires
    /// `permissions.onAdded` with nothing in it (WebKit, `permissionsRequest`: "This matches
    /// Chrome and Firefox").
    mutating func askPermission(_ asker: PermissionAsker, permissions: [String], origins: [String], now: EpochMillis, _ effects: inout [Effect]) {
        let prompt = PermissionPrompt(asker: asker, permissions: permissions, origins: origins, expires: now + Self.permissionPromptTimeout)
        if permissions.isEmpty, origins.isEmpty {
            effects.append(.note("\(asker.name) asks for nothing: granted at once"))
            permissionsChanged(added: true, permissions: [], origins: [], &effects)
            effects.append(.permissionsDecided(prompt, granted: true))
            return
        }
        permissionPrompts.append(prompt)
        effects.append(.note("\(asker.name) asks the user for \(prompt.asked): the prompt holds the background until it is answered, for 2 minutes at most"))
    }

    /// The user answers the oldest prompt, or it went unanswered too long (`timedOut`: refused).
    mutating func answerPermissionPrompt(granted: Bool, timedOut: Bool = false, _ effects: inout [Effect]) {
        guard !permissionPrompts.isEmpty else {
            effects.append(.note("no permission prompt is pending: nothing to answer"))
            return
        }
        let prompt = permissionPrompts.removeFirst()
        let how = timedOut ? "went unanswered for 2 minutes: refused" : granted ? "granted" : "refused"
        effects.append(.note("the prompt for \(prompt.asked) \(how)"))
        effects.append(.permissionsDecided(prompt, granted: granted))
    }

    /// The extension's grants changed. Safari fires `permissions.onAdded` or `onRemoved` in
    /// every context that listens, and wakes a background that listens for it (WebKit,
    /// `firePermissionsEventListenerIfNecessary` -> `wakeUpBackgroundContentIfNecessaryToFireEvents`).
    /// Permissions and host patterns are told apart, each in an event of its own when there is
    /// some: a grant's patterns first (`permissionsRequest` grants them first), a removal's
    /// permissions first (`permissionsRemove`). Only a request for nothing fires an empty one.
    mutating func permissionsChanged(added: Bool, permissions: [String], origins: [String], _ effects: inout [Effect]) {
        var changes = [(permissions: [String](), origins: origins), (permissions: permissions, origins: [String]())]
        if !added { changes.reverse() }
        changes.removeAll { $0.permissions.isEmpty && $0.origins.isEmpty }
        if changes.isEmpty {
            guard added else { return }
            changes = [([], [])]
        }
        for change in changes {
            effects.append(.dispatch(.permissionsChanged(added: added, permissions: change.permissions, origins: change.origins)))
            if runsOwnPages {
                effects.append(.pagesPermissionsChanged(added: added, permissions: change.permissions, origins: change.origins, profile: profile))
            }
        }
    }

    /// The prompts go with Safari (it quit or lost power), with the extension's instance (an
    /// update, its profile leaving the front): the user answered none, so none is granted. A
    /// page that asked and is still there hears no (a background that asked is gone with it).
    mutating func dropPermissionPrompts(_ effects: inout [Effect]) {
        guard !permissionPrompts.isEmpty else { return }
        effects.append(.note("\(permissionPrompts.count) permission prompt(s) closed unanswered"))
        for prompt in permissionPrompts { if case .page = prompt.asker { effects.append(.permissionsDecided(prompt, granted: false)) } }
        permissionPrompts = []
    }
}
