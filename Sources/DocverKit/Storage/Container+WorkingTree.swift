import Foundation

// Moving this device's branch and bringing the working tree and the index along, so that a
// crash at any point is finished (or rolled back) by the next docver command instead of being
// mistaken for the user's edits. docs/FORMAT.md, "Local metadata", describes the `intent` file.

extension Container {
    /// Moves this device's branch from `old` to `new` (compare-and-swap) and brings the
    /// working tree along. Files with local edits are left alone; they show as changed.
    func advanceBranch(to new: ObjectID, from old: ObjectID?, message: String, in repository: Repository) throws {
        let oldTree = try old.map { try repository.commit($0).treeID }
        let files = try plannedFiles(from: oldTree, to: repository.commit(new).treeID, in: repository)
        let intent = WriteIntent(operation: .integrate, from: old, to: new, files: files)
        try writeIntent(intent)
        do {
            try repository.updateReference(device.branch, to: new, expected: old, message: message)
        } catch {
            try? FileSystem.remove(self.files.intent)
            throw error
        }
        try carryOut(intent, in: repository)
    }

    /// Every file that differs between two trees, with its state on each side (nil: absent or
    /// a folder there).
    func plannedFiles(from oldTree: ObjectID?, to newTree: ObjectID, in repository: Repository) throws -> [WriteIntent.File] {
        // Each folder read once for all its files (a folder of 200,000 files was read whole
        // once per file): see DocumentEntryReader.
        let old = try oldTree.map { try DocumentEntryReader(repository: repository, tree: $0) }
        let new = try DocumentEntryReader(repository: repository, tree: newTree)
        func fileState(_ tree: DocumentEntryReader?, _ path: String) throws -> EntryState? {
            guard let entry = try tree?.entry(atPath: path), !entry.mode.isTree else { return nil }
            return EntryState(entry)
        }
        return try repository.changedPaths(from: oldTree, to: newTree).map { path in
            WriteIntent.File(path: path, old: try fileState(old, path), new: try fileState(new, path))
        }
    }

    /// Records `intent` before anything it describes happens.
    ///
    /// Not flushed to disk: it must outlive the process (a kill), which the rename ensures;
    /// against a power loss it is as durable as the branch move itself, which libgit2 does not
    /// flush either. Flushing it cost a save about a third of its time.
    func writeIntent(_ intent: WriteIntent) throws {
        try FileSystem.createDirectory(files.directory)
        try AtomicFile.write(intent.render(), to: files.intent, flush: false)
    }

    /// Does what `intent` says once the branch has moved, then forgets the intent.
    ///
    /// Safe to run again on the same intent after a crash: a file already holding its new
    /// state is left as it is, one still holding its old state is written, and one holding
    /// anything else (an edit) is left alone and shows as changed.
    func carryOut(_ intent: WriteIntent, in repository: Repository) throws {
        let results = try intent.operation.writesFiles ? applyToWorkingTree(intent.files, in: repository) : [:]
        try bringIndexInLine(intent.files, written: results, in: repository)
        removeTemporaryFiles(near: intent.files)
        // An evicted document that arrived deleted (or renamed) leaves its placeholder.
        try forgetFinishedEvictions(in: repository)
        try FileSystem.remove(files.intent)
    }

    /// Finishes or rolls back a multi-step write that a crash interrupted, before anything reads
    /// the working tree. Returns a one-line description of what it did, or nil when there was
    /// nothing to do.
    @discardableResult
    func finishInterruptedWrite(_ repository: Repository) throws -> String? {
        if FileStat(path: files.checkoutPending) != nil { return try finishLegacyCheckout(repository) }
        guard FileStat(path: files.intent) != nil else { return nil }
        guard let data = FileSystem.localContentsIfReadable(files.intent), let intent = WriteIntent.parse(data) else {
            // Not one this version wrote: nothing can be finished from it.
            try FileSystem.remove(files.intent)
            return "removed an unreadable record of an interrupted write (.git/docver/intent)"
        }
        let tip = try repository.referenceTarget(device.branch)
        let landed: Bool
        if let tip {
            landed = tip == intent.to || (try? repository.isDescendant(tip, of: intent.to)) == true
        } else {
            landed = false
        }
        guard landed else {
            // The branch never moved: nothing was written yet, so there is nothing to undo.
            removeTemporaryFiles(near: intent.files)
            try FileSystem.remove(files.intent)
            return "rolled back an interrupted \(intent.operation.rawValue) that had not moved the branch"
        }
        try carryOut(intent, in: repository)
        return "finished an interrupted \(intent.operation.rawValue) (\(intent.files.count) file\(intent.files.count == 1 ? "" : "s"))"
    }

    /// Completes a working-tree update recorded by the `checkout-pending` marker of earlier
    /// versions (a libgit2 checkout from the recorded tree).
    private func finishLegacyCheckout(_ repository: Repository) throws -> String {
        let data = FileSystem.localContentsIfReadable(files.checkoutPending) ?? Data()
        let baseline = ObjectID(hex: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        if let head = try repository.referenceTarget(device.branch) {
            try repository.checkout(tree: repository.commit(head).treeID, baseline: baseline)
        }
        try FileSystem.remove(files.checkoutPending)
        return "finished an interrupted working-tree update"
    }

    /// True while a multi-step write is unfinished (a crash interrupted it).
    var hasInterruptedCheckout: Bool {
        FileStat(path: files.intent) != nil || FileStat(path: files.checkoutPending) != nil
    }

    // MARK: The working tree

    /// What the working tree holds at one path, compared by content.
    private enum WorkingState {
        case absent
        case folder
        case entry(EntryState, FileStat)
        /// A FIFO, socket or device: never opened, never matches a state.
        case special

        var isAbsent: Bool { if case .absent = self { true } else { false } }
        var isFolder: Bool { if case .folder = self { true } else { false } }
    }

    private func workingState(_ path: String, in repository: Repository) throws -> WorkingState {
        let fullPath = root.path + "/" + path
        guard let stat = FileStat(path: fullPath) else { return .absent }
        if stat.isDirectory { return .folder }
        if stat.isSymbolicLink {
            let target = try FileSystem.linkTarget(fullPath)
            return .entry(EntryState(try repository.hashBlob(Data(target.utf8)), .link), stat)
        }
        guard stat.isRegularFile else { return .special }
        return .entry(EntryState(try repository.hashFile(at: fullPath), stat.isExecutable ? .executable : .blob), stat)
    }

    private func matches(_ working: WorkingState, _ state: EntryState?) -> Bool {
        switch (working, state) {
        case (.absent, nil): true
        case let (.entry(current, _), state?): current == state
        default: false
        }
    }

    /// Writes the planned files whose working-tree state is still the old one; returns, per
    /// path, the stat data of the files that now hold their new state (nil for an absent one).
    private func applyToWorkingTree(
        _ planned: [WriteIntent.File],
        in repository: Repository
    ) throws -> [ByteString: FileStat?] {
        var done: [ByteString: FileStat?] = [:]
        // Removals first, so a file can take the place of a folder emptied by them.
        for file in planned where file.new == nil {
            let working = try workingState(file.path, in: repository)
            if working.isAbsent { done[ByteString(file.path)] = .some(nil); continue }
            guard matches(working, file.old) else { continue }  // edited: left alone
            try FileSystem.remove(root.path + "/" + file.path)
            removeEmptyFolders(above: file.path)
            done[ByteString(file.path)] = .some(nil)
        }
        // Folders made sure of in this pass (every folder on the way is one): checked and
        // created once, not once per file, which a folder of 200,000 files made 200,000 times
        // (issue 26). Bytes: two spellings of a name are two folders.
        var readyFolders = Set<ByteString>()
        let staging = StagingFolder(files.staging, sameFileSystemAs: root.path)
        for file in planned {
            guard let new = file.new else { continue }
            let fullPath = root.path + "/" + file.path
            let folder = ByteString(
                file.path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(decoding: file.path.utf8[..<$0], as: UTF8.self) } ?? "")
            if file.old == nil, new.mode != .link, readyFolders.contains(folder) {
                // A new document in a folder already made sure of: created only if nothing is
                // there, which the creation itself checks. That spares a look-up of the name in
                // its folder (a fifth of the kernel's time in a folder of 200,000 documents),
                // and a file someone creates there meanwhile is left alone, not replaced.
                let placed = try AtomicFile.create(
                    at: fullPath, executable: new.mode == .executable, flush: false,
                    staging: staging
                ) { append in try repository.readBlob(new.id, into: append) }
                if placed {
                    done[ByteString(file.path)] = FileStat(path: fullPath)
                    continue
                }
                // Something is there: looked at below, as any planned file is.
            }
            var working = try workingState(file.path, in: repository)
            if case let .entry(current, stat) = working, current == new { done[ByteString(file.path)] = stat; continue }
            if working.isFolder, (try? FileSystem.contentsOfDirectory(fullPath))?.isEmpty == true {
                try FileSystem.remove(fullPath)
                working = .absent
            }
            let ready = readyFolders.contains(folder)
            guard matches(working, file.old), ready || parentFoldersAllow(file.path) else { continue }  // edited: left alone
            if !ready {
                try FileSystem.createDirectory(FileSystem.folder(of: fullPath))
                readyFolders.insert(folder)
            }
            // Each file atomically (a temporary file in the staging folder, then a rename),
            // flushed all at once below: a checkout of 10,000 files made 20,000 fsyncs, a
            // minute on a busy disk.
            if new.mode == .link {
                try AtomicFile.writeLink(
                    String(decoding: repository.blob(new.id).data, as: UTF8.self), to: fullPath, flush: false,
                    staging: staging)
            } else {
                // A piece at a time: a 1 GiB document is never held whole (issue 29).
                try AtomicFile.write(to: fullPath, executable: new.mode == .executable, flush: false, staging: staging) { append in
                    try repository.readBlob(new.id, into: append)
                }
            }
            done[ByteString(file.path)] = FileStat(path: fullPath)
        }
        // Durable before the intent that would repair them is removed.
        if !done.isEmpty { AtomicFile.syncFileSystem(containing: root.path) }
        return done
    }

    /// True when every folder above `path` is a folder or absent (a file or link there is
    /// someone's edit, or a saved file left alone).
    private func parentFoldersAllow(_ path: String) -> Bool {
        var current = root.path
        for component in path.split(separator: "/").dropLast() {
            current += "/" + component
            guard let stat = FileStat(path: current) else { return true }
            if !stat.isDirectory { return false }
        }
        return true
    }

    /// Removes the folders above `path` that became empty, as git does.
    private func removeEmptyFolders(above path: String) {
        var components = path.split(separator: "/").dropLast()
        while !components.isEmpty {
            let folder = root.path + "/" + components.joined(separator: "/")
            guard rmdir(folder) == 0 else { return }
            components = components.dropLast()
        }
    }

    /// Removes temporary files a killed write left in the staging folder and in the folders of
    /// `planned` files (where builds before the staging folder made them, and where they are
    /// made when the staging folder cannot be used).
    private func removeTemporaryFiles(near planned: [WriteIntent.File]) {
        AtomicFile.removeTemporaryFiles(in: files.staging)
        // The folder of each, by the bytes before its last slash (a document path is relative
        // and normalised; going through NSString cost a clone of 100,000 files 4 % of its time).
        let folders = Set(
            planned.map { file -> ByteString in
                guard let slash = file.path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ByteString("") }
                return ByteString(String(file.path[..<slash]))
            })
        for folder in folders.map(\.string) {
            AtomicFile.removeTemporaryFiles(in: folder.isEmpty ? root.path : root.path + "/" + folder)
        }
    }

    // MARK: The index

    /// Makes the index hold each planned file's new state, with fresh stat data where the
    /// working tree holds it (`written`, or found by hashing) and with stat data matching no
    /// file elsewhere, so an edit left alone shows as changed instead of hiding.
    private func bringIndexInLine(
        _ planned: [WriteIntent.File], written: [ByteString: FileStat?],
        in repository: Repository
    ) throws {
        guard !planned.isEmpty else { return }
        var stats: [ByteString: FileStat?] = written
        for file in planned where stats[ByteString(file.path)] == nil {
            let working = try workingState(file.path, in: repository)
            if case let .entry(current, stat) = working, current == file.new { stats[ByteString(file.path)] = stat }
        }
        let attempts = 50
        for attempt in 0..<attempts {
            do {
                let index = try repository.index()
                try index.reload()
                // Removals first: a file may take the place of a folder, or the reverse.
                for file in planned {
                    try index.remove(path: file.path)
                    if file.new == nil { try index.removeDirectory(path: file.path) }
                }
                for file in planned {
                    guard let new = file.new else { continue }
                    try index.removeDirectory(path: file.path)
                    try index.add(path: file.path, id: new.id, mode: new.mode, stat: (stats[ByteString(file.path)] ?? nil) ?? .unknown)
                }
                try index.write()
                return
            } catch let error as GitError where error.code == .locked {
                // A plain git command holds index.lock; the branch already moved, so wait a little.
                usleep(UInt32(2000 * (attempt + 1)))
            }
        }
        throw DocverError.indexLocked
    }
}
