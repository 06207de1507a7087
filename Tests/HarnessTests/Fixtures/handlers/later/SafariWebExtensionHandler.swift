import SafariServices

/// A handler that completes each request later, on the main queue, answering with the message
/// and the identifier of the Safari profile it came from.
class SafariWebExtensionHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        let item = context.inputItems.first as? NSExtensionItem
        let message = item?.userInfo?[SFExtensionMessageKey]
        let profile = item?.userInfo?[SFExtensionProfileKey] as? UUID
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) {
            DispatchQueue.main.async {
                let response = NSExtensionItem()
                response.userInfo = [SFExtensionMessageKey: ["message": message as Any, "profile": profile?.uuidString as Any]]
                context.completeRequest(returningItems: [response], completionHandler: nil)
            }
        }
    }
}
