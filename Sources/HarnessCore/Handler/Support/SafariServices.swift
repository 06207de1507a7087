// Stand-in for SafariServices, as much as a Safari web extension's native handler uses: the
// harness compiles it into a module of that name, so that a team's handler builds unchanged on
// Linux. As on Apple's systems, importing it imports Foundation.
@_exported import Foundation

/// The key of the message in a request's and a reply's `userInfo`.
public let SFExtensionMessageKey = "message"
/// The key of the Safari profile's identifier (a `UUID`) in a request's `userInfo`.
public let SFExtensionProfileKey = "profile"

/// What the principal class of an app extension adopts.
public protocol NSExtensionRequestHandling: NSObjectProtocol {
    func beginRequest(with context: NSExtensionContext)
}

/// The containing app's side on the Mac: a message to the extension's JavaScript. A handler
/// that shares code with its app may call it; what the request dispatched goes out with its
/// reply, and the harness delivers it as its app's `app dispatch` (macOS only). The completion
/// handler is called at once, with no error.
open class SFSafariApplication: NSObject {
    /// What the current request dispatched, in order; the handler's `main` sends and clears it.
    nonisolated(unsafe) public static var dispatched: [(name: String, userInfo: [String: Any]?)] = []

    open class func dispatchMessage(withName messageName: String, toExtensionWithIdentifier identifier: String,
                                    userInfo: [String: Any]? = nil, completionHandler: ((Error?) -> Void)? = nil) {
        dispatched.append((messageName, userInfo))
        completionHandler?(nil)
    }
}

/// One item of a request or a reply.
open class NSExtensionItem: NSObject {
    open var userInfo: [AnyHashable: Any]?

    public override init() {
        super.init()
    }
}

/// A request: its input items, and how the handler ends it.
open class NSExtensionContext: NSObject {
    public let inputItems: [Any]
    /// Told once, when the handler completes the request (its items) or cancels it (an error).
    public var ended: ((_ items: [Any]?, _ error: Error?) -> Void)?

    public init(inputItems: [Any]) {
        self.inputItems = inputItems
    }

    open func completeRequest(returningItems items: [Any]?, completionHandler: ((Bool) -> Void)? = nil) {
        ended?(items ?? [], nil)
        ended = nil
        completionHandler?(false)
    }

    open func cancelRequest(withError error: Error) {
        ended?(nil, error)
        ended = nil
    }
}
