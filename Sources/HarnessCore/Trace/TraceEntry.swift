import ProcessKit
import SiteSettings

/// One event of a trace: when, who (`background#2`, `safari`, `harness`), what (`<-` for an
/// input the process took, `->` for a directive it gave, or words), and the message, if any.
struct TraceEntry: Sendable {
    let time: EpochMillis
    let process: String
    let what: String
    let message: TraceMessage?
    /// The rule's event the line records, when the explorer counts it (never read back from a
    /// written trace).
    var rule: RuleEvent? = nil
    /// The message as the trace writes it.
    var json: JSONValue? { message?.json }
}

/// A rule's event the explorer's coverage counts by case, as the run records it.
enum RuleEvent: Int, CaseIterable, Sendable {
    /// A native reply found no background to take it.
    case replyDropped
    /// A page's question came back empty and it asks again.
    case pageAsksAgain
    /// A page stops asking after its questions came back empty.
    case pageStopsAsking
    /// The device lost power.
    case powerLost
    /// The system kept a handler's process, which serves another request.
    case handlerReused

    /// As the explorer's coverage names it.
    var name: String {
        switch self {
        case .replyDropped: "reply dropped"
        case .pageAsksAgain: "page asks again"
        case .pageStopsAsking: "page stops asking"
        case .powerLost: "power lost"
        case .handlerReused: "handler reused"
        }
    }
}
