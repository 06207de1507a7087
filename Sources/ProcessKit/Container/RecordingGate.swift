import SiteSettings

/// A yield gate that lets every step proceed, except those a test or scheduler scripts to fail,
/// and records the points in order.
public struct RecordingGate: YieldGate, Sendable {
    public private(set) var points: [YieldPoint] = []
    /// Answers by position: the n-th yield (0-based) fails with the errno given here.
    public var failures: [Int: Int32]

    public init(failures: [Int: Int32] = [:]) {
        self.failures = failures
    }

    public mutating func yield(_ point: YieldPoint) -> YieldAnswer {
        defer { points.append(point) }
        if let errno = failures[points.count] { return .fail(errno: errno) }
        return .proceed
    }
}
