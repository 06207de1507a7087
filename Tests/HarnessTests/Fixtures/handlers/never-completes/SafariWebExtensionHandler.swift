import SafariServices

/// A handler that logs each request and forgets to complete it.
class SafariWebExtensionHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        let message = (context.inputItems.first as? NSExtensionItem)?.userInfo?[SFExtensionMessageKey]
        print("got", message ?? "nothing")
    }
}
