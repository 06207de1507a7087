import SafariServices

/// A handler whose answer to `getDefault` is over the design's 1 MiB: the theme `sepia`, with
/// two mebibytes of notes beside it.
class SafariWebExtensionHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        let item = context.inputItems.first as? NSExtensionItem
        let message = item?.userInfo?[SFExtensionMessageKey] as? [String: Any]
        let answer: [String: Any] = message?["type"] as? String == "getDefault"
            ? ["key": "theme", "value": "sepia", "notes": String(repeating: "n", count: 2 << 20)]
            : ["key": "theme", "saved": true]
        let response = NSExtensionItem()
        response.userInfo = [SFExtensionMessageKey: answer]
        context.completeRequest(returningItems: [response], completionHandler: nil)
    }
}
