import ProcessKit
import SiteSettings

/// What Safari says in the trace. Most of it is prose for a reader; what a rule did that the
/// explorer counts (a page that asks again or stops asking, a reply that found no background)
/// is a case of its own, so that nothing reads the prose back.
enum SafariNote: Equatable, Sendable, ExpressibleByStringInterpolation {
    /// Said for the trace only.
    case said(String)
    /// A tab's question came back empty (its background died before answering, or no listener
    /// took it), and its content script asks again.
    case asksAgain(TabID)
    /// The same, after a pause of this many milliseconds.
    case asksAgainAfter(TabID, milliseconds: Int)
    /// A tab's content script stops asking: its question came back empty this many times in a row.
    case stopsAsking(TabID, emptyAnswers: Int)
    /// A native reply found no background loaded, and is dropped.
    case replyFoundNoBackground
    /// Something else that is not an event (a storage completion, a timeout, a port's message)
    /// found no background loaded, and is dropped; named as the wire names it.
    case droppedWithNoBackground(String)

    init(stringLiteral text: String) { self = .said(text) }
    init(stringInterpolation: DefaultStringInterpolation) { self = .said(String(stringInterpolation: stringInterpolation)) }

    /// As the trace writes it.
    var text: String {
        switch self {
        case .said(let text): text
        case .asksAgain(let tab): "tab \(tab.rawValue) asks again"
        case .asksAgainAfter(let tab, let pause): "tab \(tab.rawValue) asks again in \(ScenarioPrinter.duration(EpochMillis(pause)))"
        case .stopsAsking(let tab, let count): "tab \(tab.rawValue) stops asking: its question came back empty \(count) times in a row"
        case .replyFoundNoBackground: "nativeReplyArrived dropped: no background is loaded"
        case .droppedWithNoBackground(let event): "\(event) dropped: no background is loaded"
        }
    }

    /// The rule's event the explorer counts, if it is one.
    var rule: RuleEvent? {
        switch self {
        case .said, .droppedWithNoBackground: nil
        case .asksAgain, .asksAgainAfter: .pageAsksAgain
        case .stopsAsking: .pageStopsAsking
        case .replyFoundNoBackground: .replyDropped
        }
    }
}
