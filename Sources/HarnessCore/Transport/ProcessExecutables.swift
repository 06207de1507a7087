import ProcessKit

/// The executables that play the three roles on the process transport: by default the
/// built-in ones beside the harness (`AppProcess`, `ExtensionProcess`, `NativeHandler`), or any
/// a user names for a role (`--background-exec`), each speaking the frame protocol
/// (`Sources/ProcessKit/PROTOCOL.md`).
package struct ProcessExecutables: Equatable, Sendable {
    /// One role's executable and the arguments given before the harness's own.
    package struct Command: Equatable, Sendable {
        package var path: String
        package var arguments: [String]

        package init(path: String, arguments: [String] = []) {
            self.path = path
            self.arguments = arguments
        }
    }

    package var app: Command
    package var background: Command
    package var handler: Command
    /// The extension's own pages' runtime (`PageHost`), when its pages run: then Safari runs
    /// them in place of the reference content script and the popup's documented messages.
    package var pages: Command?

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

    /// Starts `role`'s executable with its own arguments, then the harness's; its first frame
    /// must be its `hello` for the role.
    package func start(_ role: ProcessName, _ arguments: [String], replyLimit: Int = Framing.replyLimit,
                       in group: ChildGroup? = nil) throws(ChildProcess.SpawnError) -> ChildProcess {
        let command = self[role]
        let child = try ChildProcess(executable: command.path, arguments: command.arguments + arguments,
                                     replyLimit: replyLimit, role: role.wireRole)
        group?.add(child)
        return child
    }
}

extension ProcessName {
    /// The role as the frame protocol names it.
    package var wireRole: WireProtocol.Role {
        switch self {
        case .app: .app
        case .background: .background
        case .handler: .handler
        }
    }
}
