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
    /// the prompt.
    mutating func askPermission(_ asker: PermissionAsker, permissions: [String], origins: [String], now: EpochMillis, _ effects: inout [Effect]) {
        let prompt = PermissionPrompt(asker: asker, permissions: permissions, origins: origins, expires: now + Self.permissionPromptTimeout)
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
