import Testing

@testable import DocverKit

/// The sync report's transition table (docs/MODEL.md, section 5), every pair of statuses.
@Suite struct SyncTransitionTests {
    typealias Status = SyncTransition.Status
    static let statuses: [Status] = [.notListed, .open, .closed(setAside: false), .closed(setAside: true), .current]

    /// The table as docs/MODEL.md states it, written out independently of the code's switch.
    static func expected(_ before: Status, _ after: Status, own: Bool) -> DocumentSyncChange.Kind? {
        if before == after { return nil }
        switch after {
        case .notListed: return nil
        case .open: return own ? .yoursIsConflictVersion : .conflictVersionKept
        case .closed(let setAside):
            if before == .open { return .resolvedElsewhere }
            if case .closed = before { return nil }
            return setAside ? .setAsideByPlainMerge : .resolvedElsewhere
        case .current: return own ? nil : .updated
        }
    }

    @Test func everyPairOfStatusesHasTheTablesEntry() {
        for before in Self.statuses {
            for after in Self.statuses {
                for own in [false, true] where !(before == after && after == .current) {
                    #expect(
                        SyncTransition.entry(from: before, to: after, isOwn: own) == Self.expected(before, after, own: own),
                        "\(before) → \(after), own: \(own)")
                }
            }
        }
    }

    @Test func theRowsOfTheReport() {
        #expect(SyncTransition.entry(from: .notListed, to: .open, isOwn: true) == .yoursIsConflictVersion)
        #expect(SyncTransition.entry(from: .current, to: .open, isOwn: false) == .conflictVersionKept)
        #expect(SyncTransition.entry(from: .open, to: .closed(setAside: true), isOwn: false) == .resolvedElsewhere)
        #expect(SyncTransition.entry(from: .notListed, to: .closed(setAside: true), isOwn: true) == .setAsideByPlainMerge)
        #expect(SyncTransition.entry(from: .current, to: .closed(setAside: false), isOwn: true) == .resolvedElsewhere)
        #expect(SyncTransition.entry(from: .notListed, to: .current, isOwn: false) == .updated)
        #expect(SyncTransition.entry(from: .current, to: .current, isOwn: true) == nil)
        #expect(SyncTransition.entry(from: .open, to: .open, isOwn: true) == nil)
    }
}
