import SiteSettings

/// Where a yield goes: the harness over the wire, or a scheduler in the same process.
public protocol YieldGate {
    mutating func yield(_ point: YieldPoint) -> YieldAnswer
}
