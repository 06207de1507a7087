import ProcessKit

/// The executables that play the three roles on the process transport: by default the
/// built-in ones beside the harness (`AppProcess`, `ExtensionProcess`, `NativeHandler`), or any
/// a user names for a role (`--background-exec`), each speaking the frame protocol
/// (`Sources/ProcessKit/PROTOCOL.md`).
package struct ProcessExecutables: Equatable, Sendable {
    /// One role's executable, the arguments given before the harness's own, and what its
    /// environment needs beside what the harness gives it (the JavaScript runtime's `NODE_PATH`,
    /// where a background page's DOM is looked for).
    package struct Command: Equatable, Sendable {
        package var path: String
        package var arguments: [String]
        package var environment: [String: String]

        package init(path: String, arguments: [String] = [], environment: [String: String] = [:]) {
            self.path = path
            self.arguments = arguments
            self.environment = environment
        }
    }

    var app: Command
    package var background: Command
    package var handler: Command
    /// The extension's own pages' runtime (`PageHost`), when its pages run: then Safari runs
    /// them in place of the reference content script and the popup's documented messages.
    var pages: Command?
    /// A host that runs each background incarnation as a context of one process
    /// (`ContextHost`, the JavaScript runtime's `--host`): when set, backgrounds are opened in
    /// it rather than started from `background`, which plays the same role one process each.
    var backgroundHost: Command?
    /// Whether an extension's JavaScript background, when one is chosen, runs in a host
    /// (`backgroundHost`) or one process per incarnation (`--isolated`).
    package var hostsBackgrounds = true
    /// Whether the handler is a team's own, built from its Swift (`TeamHandler`): it answers in
    /// its own messages, up to WebKit's message limit, and has no yield points.
    package var teamHandler = false

    /// These executables with every background incarnation a process of its own.
    package var isolated: ProcessExecutables {
        var copy = self
        copy.hostsBackgrounds = false
        copy.backgroundHost = nil
        return copy
    }

    /// The built-in executables in `folder`.
    package init(folder: String) {
        app = Command(path: folder + "/AppProcess")
        background = Command(path: folder + "/ExtensionProcess")
        handler = Command(path: folder + "/NativeHandler")
    }

    package subscript(role: ProcessName) -> Command {
        get {
            switch role {
            case .app: app
            case .background: background
            case .handler: handler
            }
        }
        set {
            switch role {
            case .app: app = newValue
            case .background: background = newValue
            case .handler: handler = newValue
            }
        }
    }

    /// Starts `role`'s executable with its own arguments, then the harness's, and exactly
    /// `environment`; its first frame must be its `hello` for the role.
    func start(_ role: ProcessName, _ arguments: [String], replyLimit: Int = Framing.replyLimit, environment: [String: String] = [:],
                       in group: ChildGroup? = nil) throws(ChildProcess.SpawnError) -> ChildProcess {
        let command = self[role]
        let child = try ChildProcess(executable: command.path, arguments: command.arguments + arguments,
                                     environment: command.environment.merging(environment) { _, given in given },
                                     replyLimit: replyLimit, role: role.wireRole)
        group?.add(child)
        return child
    }
}

extension ProcessName {
    /// The role as the frame protocol names it.
    var wireRole: WireProtocol.Role {
        switch self {
        case .app: .app
        case .background: .background
        case .handler: .handler
        }
    }
}
