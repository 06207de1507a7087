// A small child process for the harness's own tests, built on ProcessKit's framing and nothing
// heavier, so that it starts about as fast as the real per-request processes.
//
// It reads frames from stdin. A payload that starts with "!" is a command; anything else comes
// back unchanged. Commands:
//   !fds          the open descriptors, from /proc/self/fd, as "0,1,2"
//   !info         "pid=P pgid=G blocked=LIST ignored=LIST": its process group, blocked signals
//                 and ignored signals ("none" for an empty list)
//   !stderr N     writes N bytes to stderr (ending in "end of stderr\n"), then answers "wrote N"
//   !sleep MS     sleeps MS milliseconds, then answers "slept MS"
//   !exit CODE    exits with CODE at once, without an answer
//   !block        blocks forever in a read that no input can end
// At the end of its input it answers "eof" and exits 0; a frame it cannot read exits 65.
// Started with the single argument --report-fds, it writes one frame with its open descriptors
// to stdout and exits, without reading any input.
import Glibc
import ProcessKit

/// Exit status after an unreadable frame or a failed write.
let failureStatus: Int32 = 65

func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    var written = 0
    while written < bytes.count {
        let from = written
        let n = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + from, $0.count - from) }
        if n > 0 { written += n } else if n < 0 && errno == EINTR { continue } else { exit(failureStatus) }
    }
}

func reply(_ text: String) {
    do { try FrameWriter(descriptor: 1).write(Array(text.utf8)) } catch {
        writeAll(2, Array("echochild: cannot answer: \(error)\n".utf8))
        exit(failureStatus)
    }
}

func openDescriptors() -> String {
    guard let directory = opendir("/proc/self/fd") else { return "unreadable" }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var found: [Int32] = []
    while let entry = readdir(directory) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) {
            String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
        }
        if let fd = Int32(name), fd != own { found.append(fd) }
    }
    return found.sorted().map(String.init).joined(separator: ",")
}

func signalReport() -> String {
    var blockedSet = sigset_t()
    sigprocmask(SIG_BLOCK, nil, &blockedSet)
    var blocked: [String] = []
    var ignored: [String] = []
    for signal in 1..<Int32(65) {
        if sigismember(&blockedSet, signal) == 1 { blocked.append(String(signal)) }
        var action = sigaction()
        if sigaction(signal, nil, &action) == 0,
           let handler = action.__sigaction_handler.sa_handler,
           unsafeBitCast(handler, to: Int.self) == 1 /* SIG_IGN */ {
            ignored.append(String(signal))
        }
    }
    func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ",") }
    return "pid=\(getpid()) pgid=\(getpgrp()) blocked=\(list(blocked)) ignored=\(list(ignored))"
}

func writeStderr(_ count: Int) {
    let marker = Array("end of stderr\n".utf8)
    var bytes = [UInt8](repeating: UInt8(ascii: "e"), count: max(count - marker.count, 0))
    bytes += marker.suffix(count - bytes.count)
    writeAll(2, bytes)
}

func blockForever() -> Never {
    var ends: [Int32] = [-1, -1]
    _ = pipe(&ends)
    var byte: UInt8 = 0
    while true { _ = read(ends[0], &byte, 1) }
}

if CommandLine.arguments.dropFirst() == ["--report-fds"] {
    reply(openDescriptors())
    exit(0)
}

var reader = FrameReader(descriptor: 0, limit: Framing.requestLimit)
while true {
    let payload: [UInt8]
    do {
        guard let next = try reader.next() else {
            reply("eof")
            exit(0)
        }
        payload = next
    } catch {
        writeAll(2, Array("echochild: \(error)\n".utf8))
        exit(failureStatus)
    }
    guard payload.first == UInt8(ascii: "!") else {
        do { try FrameWriter(descriptor: 1).write(payload) } catch { exit(failureStatus) }
        continue
    }
    let words = String(decoding: payload.dropFirst(), as: UTF8.self).split(separator: " ")
    let argument = words.count > 1 ? Int(words[1]) : nil
    switch (words.first ?? "", argument) {
    case ("fds", _):
        reply(openDescriptors())
    case ("info", _):
        reply(signalReport())
    case ("stderr", let count?):
        writeStderr(count)
        reply("wrote \(count)")
    case ("sleep", let milliseconds?):
        var interval = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var left = timespec()
        while nanosleep(&interval, &left) != 0 && errno == EINTR { interval = left }
        reply("slept \(milliseconds)")
    case ("exit", let code?):
        exit(Int32(truncatingIfNeeded: code))
    case ("block", _):
        blockForever()
    default:
        reply("unknown command: \(String(decoding: payload, as: UTF8.self))")
    }
}
