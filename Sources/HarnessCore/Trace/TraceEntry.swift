import ProcessKit
import SiteSettings

/// One event of a trace: when, who (`background#2`, `safari`, `harness`), what (`<-` for an
/// input the process took, `->` for a directive it gave, or words), and the message, if any.
package struct TraceEntry: Sendable {
    package let time: EpochMillis
    package let process: String
    package let what: String
    package let message: TraceMessage?
    /// The message as the trace writes it.
    package var json: JSONValue? { message?.json }
}
