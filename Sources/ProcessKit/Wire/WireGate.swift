#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

/// A yield gate over the frame protocol: each yield point becomes a `yield` frame, and the
/// process blocks until the harness answers `continue` or `fail`. A frame it cannot read gets an
/// `error` frame and is otherwise ignored. When the harness hangs up (end of input, a broken
/// pipe), every later step fails and nothing more is sent: a process that lost its harness,
/// like one killed at a yield point, changes nothing after that point.
///
/// A free-running gate (`harness soak`, the executables' `--free` option) sends no `yield`
/// frame and goes on at once: the operating system's scheduling, not the harness, decides what
/// runs between two steps.
public struct WireGate: YieldGate {
    private var reader: FrameReader
    private let writer: FrameWriter
    private var seq = 0
    /// Whether yield points pass without asking the harness.
    public let free: Bool
    /// The role the process plays, whose codec reads its inputs.
    public let role: WireProtocol.Role
    /// True once the harness has gone away.
    public private(set) var hungUp = false

    public init(reader: FrameReader, writer: FrameWriter, free: Bool = false, role: WireProtocol.Role) {
        self.reader = reader
        self.writer = writer
        self.free = free
        self.role = role
    }

    /// The gate of a child process playing `role`: frames on its standard input and output,
    /// the first one written its `hello`, before it reads anything.
    public static func standardStreams(free: Bool, role: WireProtocol.Role) -> WireGate {
        var gate = WireGate(reader: FrameReader(descriptor: 0, limit: Framing.requestLimit), writer: FrameWriter(descriptor: 1), free: free, role: role)
        gate.send(.hello(role: role.rawValue, protocol: WireProtocol.version))
        return gate
    }

    /// The next protocol message from the harness, or nil once it has hung up. A frame that is
    /// not a message gets an `error` frame back and is skipped.
    public mutating func receive() -> ToChild? {
        while !hungUp {
            let frame: [UInt8]?
            do { frame = try reader.next() } catch {
                send(.error(error.description))
                hungUp = true
                return nil
            }
            guard let frame else {
                hungUp = true
                return nil
            }
            do {
                return try ToChild.decode(frame, role: role)
            } catch {
                send(.error(error.description))
            }
        }
        return nil
    }

    public mutating func yield(_ point: YieldPoint) -> YieldAnswer {
        if free { return hungUp ? .fail(errno: ECANCELED) : .proceed }
        seq += 1
        send(.yield(point, seq: seq))
        while true {
            switch receive() {
            case .proceed?:
                return .proceed
            case .fail(let errno, _, let after)?:
                return after ? .failAfter(errno: errno) : .fail(errno: errno)
            case .input?:
                send(.error("an input arrived while waiting at yield point '\(point.rawValue)'; ignored"))
            case nil:
                return .fail(errno: ECANCELED)
            }
        }
    }

    /// Writes a frame; a harness that has gone away is noted, not an error.
    public mutating func send(_ message: FromChild) {
        guard !hungUp else { return }
        do { try writer.write(JSONWriter.compact(message.json)) } catch { hungUp = true }
    }
}
