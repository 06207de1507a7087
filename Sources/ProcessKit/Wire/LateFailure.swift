import SiteSettings

/// A failure the harness asked for after a step: thrown once the step has taken effect.
struct LateFailure {
    let point: YieldPoint
    let errno: Int32?

    /// Throws a failure meant for before the step; keeps one meant for after it.
    static func pass(_ point: YieldPoint, _ answer: YieldAnswer) throws(StoreError) -> LateFailure {
        switch answer {
        case .proceed: LateFailure(point: point, errno: nil)
        case .fail(let errno): throw StoreError(point.rawValue, errno: errno)
        case .failAfter(let errno): LateFailure(point: point, errno: errno)
        }
    }

    func afterwards() throws(StoreError) {
        if let errno { throw StoreError(point.rawValue + " (after it took effect)", errno: errno) }
    }
}
