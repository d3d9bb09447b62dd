import DocverTestSupport
import Testing

@testable import DocverKit

@Suite struct PriorityHeapTests {
    /// Pushes and pops interleaved at random give what a sorted list of the pending elements
    /// gives: the first under the order each time (ties broken by entry, as the revwalk needs).
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func popsInTheOrderASortedListWouldGive(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let before: ((Int, Int), (Int, Int)) -> Bool = { a, b in a.0 != b.0 ? a.0 > b.0 : a.1 < b.1 }
        var heap = PriorityHeap<(Int, Int)>(isBefore: before)
        var model: [(Int, Int)] = []
        var entry = 0
        for _ in 0..<2_000 {
            if Int.random(in: 0..<3, using: &random) < 2 {
                let element = (Int.random(in: 0..<20, using: &random), entry)
                entry += 1
                heap.push(element)
                model.append(element)
            } else {
                model.sort(by: before)
                let expected = model.isEmpty ? nil : model.removeFirst()
                let popped = heap.pop()
                #expect(popped?.0 == expected?.0 && popped?.1 == expected?.1)
            }
        }
        #expect(heap.isEmpty == model.isEmpty)
    }
}
