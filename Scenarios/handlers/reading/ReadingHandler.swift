import Foundation
import os.log

/// The native side of a reading mode: it keeps the reader's preferences in the App Group's
/// defaults, which the containing app edits too. Messages are `{"type": "getDefault", "key": K}`
/// and `{"type": "setDefault", "key": K, "value": V}`; anything else is refused with an error.
final class ReadingHandler: NSObject, NSExtensionRequestHandling {
    private static let group = "group.example.reading"
    private let logger = Logger(subsystem: "example.reading", category: "native")

    func beginRequest(with context: NSExtensionContext) {
        let item = context.inputItems.first as? NSExtensionItem
        let message = item?.userInfo?[SFExtensionMessageKey] as? [String: Any] ?? [:]
        guard let defaults = UserDefaults(suiteName: Self.group), let key = message["key"] as? String else {
            return reply(["error": "no key"], to: context)
        }
        switch message["type"] as? String {
        case "getDefault":
            logger.info("read \(key, privacy: .public)")
            reply(["key": key, "value": defaults.object(forKey: key) ?? NSNull()], to: context)
        case "setDefault":
            defaults.set(message["value"], forKey: key)
            os_log(.info, "wrote %{public}@", key)
            reply(["key": key, "saved": true], to: context)
        default:
            context.cancelRequest(withError: NSError(domain: "example.reading", code: 1))
        }
    }

    private func reply(_ message: [String: Any], to context: NSExtensionContext) {
        let response = NSExtensionItem()
        response.userInfo = [SFExtensionMessageKey: message]
        context.completeRequest(returningItems: [response], completionHandler: nil)
    }
}
