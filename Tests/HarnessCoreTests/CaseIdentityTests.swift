@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Enums compared and hashed by case rather than by their raw text: two values are equal
/// exactly when their raw values are, and equal values hash alike.
struct CaseIdentityTests {
    private func check<E: CaseIterable & Hashable & RawRepresentable>(_: E.Type) where E.RawValue == String {
        for a in E.allCases {
            for b in E.allCases {
                #expect((a == b) == (a.rawValue == b.rawValue), "\(a.rawValue) against \(b.rawValue)")
            }
        }
        #expect(Set(E.allCases).count == E.allCases.count)
        #expect(Set(E.allCases.map(\.hashValue)).count == E.allCases.count, "each case hashes apart")
    }

    @Test func yieldPoints() { check(YieldPoint.self) }
    @Test func processNames() { check(ProcessName.self) }
    @Test func siteFields() { check(SiteField.self) }
}
