import SafariServices

/// A handler that shares code with its Mac app: asked for the reading default, it answers
/// `true`, then tells the extension, as the app would, that the default is now `false`.
class SafariWebExtensionHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        let response = NSExtensionItem()
        response.userInfo = [SFExtensionMessageKey: ["key": "readingDefault", "value": true]]
        context.completeRequest(returningItems: [response], completionHandler: nil)
        SFSafariApplication.dispatchMessage(withName: "defaultChanged", toExtensionWithIdentifier: "example.reader.Extension",
                                           userInfo: ["readingDefault": false]) { _ in }
    }
}
