// The handler role for a team's own native handler: speaks the harness's frame protocol
// (PROTOCOL.md) on standard input and output, and hands each request to the principal class
// (`makePrincipal()`, generated beside this file) as Safari's app extension host would.
// Built by the harness with the team's sources; not part of them.
import Foundation
import SafariServices
#if canImport(Glibc)
import Glibc
#endif

// The frames go out on the original standard output; what the handler prints goes to standard
// error, which the harness keeps for its diagnostics.
let frames = dup(1)
dup2(2, 1)

func send(_ frame: [String: Any]) {
    guard let payload = try? JSONSerialization.data(withJSONObject: frame, options: [.fragmentsAllowed]) else { exit(70) }
    var length = UInt32(payload.count).littleEndian
    var bytes = Data(bytes: &length, count: 4)
    bytes.append(payload)
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(frames, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { exit(75) }
            offset += written
        }
    }
}

func receive(_ count: Int) -> Data? {
    var data = Data()
    while data.count < count {
        let chunk = FileHandle.standardInput.readData(ofLength: count - data.count)
        if chunk.isEmpty { return nil }
        data.append(chunk)
    }
    return data
}

/// A value as JSON takes it, as Foundation bridges it on Apple's systems: optionals unwrapped
/// (nil is null), arrays and dictionaries walked.
func plain(_ value: Any) -> Any {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
        guard let wrapped = mirror.children.first?.value else { return NSNull() }
        return plain(wrapped)
    }
    if let array = value as? [Any] { return array.map(plain) }
    if let dictionary = value as? [String: Any] { return dictionary.mapValues(plain) }
    if let dictionary = value as? [AnyHashable: Any] {
        return Dictionary(dictionary.map { ("\($0.key.base)", plain($0.value)) }) { first, _ in first }
    }
    return value
}

/// The profile's identifier as `SFExtensionProfileKey` gives it: a UUID made from its name and
/// the run's seed, the same for every request of a run.
func profileIdentifier(_ name: String, seed: String) -> UUID {
    var bytes: [UInt8] = []
    for round in 0..<2 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(round)/\(seed)/\(name)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        bytes += withUnsafeBytes(of: hash.bigEndian, Array.init)
    }
    bytes[6] = bytes[6] & 0x0f | 0x40
    bytes[8] = bytes[8] & 0x3f | 0x80
    return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                       bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
}

/// How long a request may take to complete (`--watchdog MS`, the harness's; 10 s unless given).
let watchdogSeconds: TimeInterval = {
    let arguments = CommandLine.arguments
    guard let flag = arguments.firstIndex(of: "--watchdog"), flag + 1 < arguments.count, let milliseconds = Double(arguments[flag + 1]) else { return 10 }
    return milliseconds / 1000
}()

send(["kind": "hello", "protocol": 1, "role": "handler"])
while let header = receive(4) {
    let length = Int(UInt32(littleEndian: header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
    guard let payload = receive(length),
          let frame = (try? JSONSerialization.jsonObject(with: payload, options: [.fragmentsAllowed])) as? [String: Any],
          frame["kind"] as? String == "input", let input = frame["input"] as? [String: Any] else {
        send(["kind": "error", "message": "expected an input frame"])
        continue
    }
    // What other processes wrote to the App Group's defaults is read afresh for each request.
    UserDefaults.standard.synchronize()
    let item = NSExtensionItem()
    item.userInfo = [SFExtensionMessageKey: input["message"] ?? NSNull(),
                     SFExtensionProfileKey: profileIdentifier(input["profile"] as? String ?? "default", seed: "\(frame["seed"] ?? 0)")]
    let context = NSExtensionContext(inputItems: [item])
    var directive: [String: Any]?
    context.ended = { items, error in
        guard error == nil else {
            directive = ["type": "cancel"]
            return
        }
        // Safari reads the first item's message (WebKit: `items.firstObject.userInfo[messageKey]`).
        guard let reply = (items?.first as? NSExtensionItem)?.userInfo?[SFExtensionMessageKey] else {
            directive = ["type": "reply"]
            return
        }
        let value = plain(reply)
        guard JSONSerialization.isValidJSONObject([value]) else {
            // (The harness's choice: the script gets nothing, as for a reply with no message.)
            FileHandle.standardError.write(Data("the reply is not JSON: \(value)\n".utf8))
            directive = ["type": "reply"]
            return
        }
        directive = ["type": "reply", "message": value]
    }
    makePrincipal().beginRequest(with: context)
    // A request completed later (on a queue, after a timer) lets the main run loop run meanwhile;
    // one not completed within the watchdog never will be, as far as the harness waits.
    let deadline = Date(timeIntervalSinceNow: watchdogSeconds)
    while directive == nil && Date() < deadline { RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.005)) }
    guard directive != nil else {
        send(["kind": "done", "directives": [["type": "neverCompleted"]]])
        continue
    }
    // What the request set reaches the container before its reply leaves; what it dispatched
    // to the extension goes after the reply.
    UserDefaults.standard.synchronize()
    let dispatched = SFSafariApplication.dispatched.map { message -> [String: Any] in
        var directive: [String: Any] = ["type": "dispatchMessage", "name": message.name]
        if let userInfo = message.userInfo, JSONSerialization.isValidJSONObject([plain(userInfo)]) { directive["userInfo"] = plain(userInfo) }
        return directive
    }
    SFSafariApplication.dispatched = []
    send(["kind": "done", "directives": [directive!] + dispatched])
}
exit(0)
