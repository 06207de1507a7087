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
