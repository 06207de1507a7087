import Synchronization

/// A disk in memory, shared by every process of an in-process run: the App Group container and
/// the extension storage live on it as files named `folder/name`.
///
/// It keeps unsynced changes apart, as a real disk's page cache does: reads see every change,
/// but a change survives a power loss only once flushed (a file's data by `sync`, a rename or
/// removal by `syncDirectory` on its folder). `powerLoss(keeping:)` drops any subset of the
/// changes not yet flushed, in the order they were made, and every process then restarts from
/// what survived. A kill loses nothing that reached the disk, flushed or not.
///
/// The container's lock has one holder at a time, named by process; the harness frees it when
/// the holder dies, as `flock` does.
///
/// A planned power cut (`cutPower`) happens at a chosen flush, before it takes effect: the
/// unsynced changes the plan keeps survive, and the disk's `generation` moves on, so storage
/// views opened before the cut (`SimulatedContainer`, `SimulatedExtensionFolder`) fail every
/// later step, as processes that lost power do nothing more.
public final class SimulatedDisk: Sendable {
    /// Where the power fails: before the `flush`-th flush of the run (from 1), keeping the
    /// unsynced changes `keep` accepts by their position.
    public struct PowerCut: Sendable {
        public var flush: Int
        public var keep: @Sendable (Int) -> Bool

        public init(flush: Int, keep: @escaping @Sendable (Int) -> Bool) {
            self.flush = flush
            self.keep = keep
        }
    }

    /// A change that has not reached the platter yet.
    public enum Change: Equatable, Sendable, CustomStringConvertible {
        /// A file's data (nil: the file removed).
        case write(String, [UInt8]?)
        case rename(String, to: String)
        /// A second name for a file's bytes, as a hard link.
        case link(String, to: String)

        public var description: String {
            switch self {
            case .write(let path, let bytes): bytes == nil ? "remove \(path)" : "write \(path)"
            case .rename(let from, let to): "rename \(from) to \(to)"
            case .link(let from, let to): "link \(from) to \(to)"
            }
        }

        /// Whether a folder flush makes it durable: names (renames, links, removals), not data.
        var isMetadata: Bool {
            switch self {
            case .write(_, let bytes): bytes == nil
            case .rename, .link: true
            }
        }

        var paths: [String] {
            switch self {
            case .write(let path, _): [path]
            case .rename(let from, let to), .link(let from, let to): [from, to]
            }
        }
    }

    struct State {
        /// What reads see.
        var files: [String: [UInt8]] = [:] {
            didSet { changes += 1 }
        }
        /// How many times `files` changed.
        var changes = 0
        /// What a power loss keeps.
        var durable: [String: [UInt8]] = [:]
        var unsynced: [Change] = []
        var lockHolder: String?
        var flushes = 0
        var unsyncedAtFlushes: [Int] = []
        var generation = 0
        var powerCut: PowerCut?
        /// What the last power cut kept and dropped.
        var lastCut: (kept: Int, dropped: Int)?
    }

    private let state: Mutex<State>

    /// A disk whose files are all flushed already.
    public init(files: [String: [UInt8]] = [:]) {
        state = Mutex(State(files: files, durable: files))
    }

    /// Every file by its full name, as reads see it. Setting replaces the disk, flushed.
    public var files: [String: [UInt8]] {
        get { state.withLock { $0.files } }
        set { state.withLock { $0 = State(files: newValue, durable: newValue, lockHolder: $0.lockHolder, flushes: $0.flushes,
                                           unsyncedAtFlushes: $0.unsyncedAtFlushes, generation: $0.generation) } }
    }

    /// How many flushes (`sync`, `syncDirectory`) there have been.
    public var flushes: Int { state.withLock { $0.flushes } }

    /// Moves on at every power cut: storage opened in an earlier generation is dead.
    public var generation: Int { state.withLock { $0.generation } }

    /// EIO for a process that started in an earlier generation: its power has failed since.
    public func ensurePowered(since generation: Int) throws(StoreError) {
        if self.generation != generation { throw StoreError("power lost", errno: 5) }
    }

    /// Plans a power cut (nil: none).
    public func cutPower(_ cut: PowerCut?) { state.withLock { $0.powerCut = cut } }

    /// The power fails now: the unsynced changes `keep` accepts survive, and storage opened
    /// before is dead.
    public func cutPowerNow(keeping keep: (Int) -> Bool) {
        state.withLock { Self.loseUnsynced(&$0, keeping: keep) }
    }

    /// How many changes were waiting when each flush of the run was asked for.
    public var unsyncedAtFlushes: [Int] { state.withLock { $0.unsyncedAtFlushes } }

    /// Whether a planned power cut has not happened yet.
    public var powerCutPending: Bool { state.withLock { $0.powerCut != nil } }

    /// How many unsynced changes the last power cut kept and dropped.
    public var lastCut: (kept: Int, dropped: Int)? { state.withLock { $0.lastCut } }

    /// The changes a power loss could drop now, oldest first.
    public var unsynced: [Change] { state.withLock { $0.unsynced } }

    public func read(_ path: String) -> [UInt8]? { state.withLock { $0.files[path] } }

    /// How many times what reads see has changed: equal counts, equal files.
    public var changes: Int { state.withLock { $0.changes } }

    /// Writes (or with nil removes) a file; durable only after `sync(path)`.
    public func write(_ path: String, _ bytes: [UInt8]?) {
        state.withLock {
            $0.files[path] = bytes
            $0.unsynced.append(.write(path, bytes))
        }
    }

    /// Puts a file on the platter at once, as the world outside the run does (a starting
    /// document, a restart clearing memory-backed storage): no flush is counted.
    public func place(_ path: String, _ bytes: [UInt8]?) {
        state.withLock {
            $0.files[path] = bytes
            $0.durable[path] = bytes
        }
    }

    /// Gives a file's bytes a second name, as a hard link does; durable after `syncDirectory`.
    public func link(_ path: String, to target: String) {
        state.withLock {
            $0.files[target] = $0.files[path]
            $0.unsynced.append(.link(path, to: target))
        }
    }

    /// Renames a file; false if there is none. Durable only after `syncDirectory`.
    public func rename(_ path: String, to target: String) -> Bool {
        state.withLock {
            guard let bytes = $0.files.removeValue(forKey: path) else { return false }
            $0.files[target] = bytes
            $0.unsynced.append(.rename(path, to: target))
            return true
        }
    }

    /// Flushes a file's data: its pending writes become durable.
    public func sync(_ path: String) {
        flush { if case .write(let written, _) = $0 { written == path } else { false } }
    }

    /// Flushes a folder: pending renames, links and removals in it become durable. File data
    /// written there is not flushed by this (a rename of unflushed data can survive a power loss
    /// without the data, as on a real disk).
    public func syncDirectory(_ folder: String) {
        flush { change in change.isMetadata && change.paths.contains { $0.hasPrefix(folder) } }
    }

    /// The power fails: only flushed changes and the unsynced ones `keep` accepts (by their
    /// position in `unsynced`) survive, applied in the order they were made. Reads then see
    /// what survived, and nobody holds the lock.
    public func powerLoss(keeping keep: (Int) -> Bool = { _ in false }) {
        state.withLock { Self.loseUnsynced(&$0, keeping: keep) }
    }

    private static func loseUnsynced(_ state: inout State, keeping keep: (Int) -> Bool) {
        var durable = state.durable
        var kept = 0
        for (index, change) in state.unsynced.enumerated() where keep(index) {
            Self.apply(change, to: &durable)
            kept += 1
        }
        state.lastCut = (kept, state.unsynced.count - kept)
        state.files = durable
        state.durable = durable
        state.unsynced = []
        state.lockHolder = nil
        state.generation += 1
    }

    /// Takes the container's lock for `owner`; false if another holds it.
    func takeLock(for owner: String) -> Bool {
        state.withLock {
            guard $0.lockHolder == nil || $0.lockHolder == owner else { return false }
            $0.lockHolder = owner
            return true
        }
    }

    /// Frees the lock if `owner` holds it.
    public func releaseLock(heldBy owner: String) {
        state.withLock { if $0.lockHolder == owner { $0.lockHolder = nil } }
    }

    public var lockHolder: String? { state.withLock { $0.lockHolder } }

    private func flush(_ selected: (Change) -> Bool) {
        state.withLock { state in
            state.flushes += 1
            state.unsyncedAtFlushes.append(state.unsynced.count)
            if let cut = state.powerCut, cut.flush == state.flushes {
                state.powerCut = nil
                Self.loseUnsynced(&state, keeping: cut.keep)
                return
            }
            var remaining: [Change] = []
            for change in state.unsynced {
                if selected(change) { Self.apply(change, to: &state.durable) } else { remaining.append(change) }
            }
            state.unsynced = remaining
        }
    }

    private static func apply(_ change: Change, to files: inout [String: [UInt8]]) {
        switch change {
        case .write(let path, let bytes):
            files[path] = bytes
        case .rename(let from, let to):
            files[to] = files.removeValue(forKey: from)
        case .link(let from, let to):
            files[to] = files[from]
        }
    }
}
