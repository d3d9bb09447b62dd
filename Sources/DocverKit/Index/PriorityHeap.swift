/// A binary heap: `pop` gives the element that comes first under `isBefore` (a strict order).
/// The index's walks use it twice: commits by committer time as libgit2's revwalk takes
/// them, and commits by generation for ancestry.
struct PriorityHeap<Element> {
    private var items: [Element] = []
    private let isBefore: (Element, Element) -> Bool

    init(isBefore: @escaping (Element, Element) -> Bool) {
        self.isBefore = isBefore
    }

    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ element: Element) {
        items.append(element)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard isBefore(items[child], items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < items.count, isBefore(items[left], items[first]) { first = left }
            if right < items.count, isBefore(items[right], items[first]) { first = right }
            if first == parent { break }
            items.swapAt(parent, first)
            parent = first
        }
        return top
    }
}
