import SiteSettings

/// The gate of a shell resumed message by message: it never asks a gate, it is given each
/// answer.
public struct NoGate: YieldGate {
    public init() {}
    public mutating func yield(_ point: YieldPoint) -> YieldAnswer {
        preconditionFailure("a stepped shell is given its answer at '\(point.rawValue)', it never asks for one")
    }
}
