import ProcessKit
import Testing

struct SimulatedDiskTests {
    @Test func aChangeSurvivesAPowerLossOnlyOnceFlushed() {
        let disk = SimulatedDisk(files: ["c/a": [1]])
        disk.write("c/a", [2])
        #expect(disk.read("c/a") == [2], "reads see unsynced changes")
        #expect(disk.unsynced == [.write("c/a", [2])])
        disk.powerLoss()
        #expect(disk.read("c/a") == [1])
        disk.write("c/a", [3])
        disk.sync("c/a")
        disk.powerLoss()
        #expect(disk.read("c/a") == [3])
    }

    @Test func aRenameNeedsTheFolderFlushedAndItsDataFlushedSeparately() {
        let disk = SimulatedDisk(files: ["c/doc": [1]])
        disk.write("c/tmp", [2])
        _ = disk.rename("c/tmp", to: "c/doc")
        disk.syncDirectory("c/")
        disk.powerLoss()
        #expect(disk.read("c/doc") == nil, "the rename survived without the data that was never flushed")
        let again = SimulatedDisk(files: ["c/doc": [1]])
        again.write("c/tmp", [2])
        again.sync("c/tmp")
        _ = again.rename("c/tmp", to: "c/doc")
        again.powerLoss(keeping: { _ in false })
        #expect(again.read("c/doc") == [1])
        #expect(again.read("c/tmp") == [2])
    }

    @Test func anySubsetOfUnsyncedChangesCanSurvive() {
        let disk = SimulatedDisk()
        disk.write("c/a", [1])
        disk.write("c/b", [2])
        disk.powerLoss(keeping: { $0 == 1 })
        #expect(disk.files == ["c/b": [2]])
    }

    @Test func theContainersAtomicReplaceLeavesTheOldOrTheNewDocumentNeverATornOne() throws {
        let disk = SimulatedDisk(files: ["container/settings.json": [1]])
        var container = SimulatedContainer(disk: disk, owner: "handler#1")
        try container.writeTemporary([2])
        disk.powerLoss(keeping: { _ in true })
        #expect(disk.read("container/settings.json") == [1])
        // The process that lost power does nothing more; a restarted one carries on.
        #expect(throws: StoreError("power lost", errno: 5)) { try container.replaceDocument() }
        container = SimulatedContainer(disk: disk, owner: "handler#2")
        try container.writeTemporary([3])
        try container.replaceDocument()
        #expect(disk.unsynced.isEmpty)
        disk.powerLoss()
        #expect(disk.read("container/settings.json") == [3])
        #expect(disk.read("container/settings.previous.json") == [1])
    }

    @Test func aPlannedPowerCutHappensBeforeItsFlushAndKeepsWhatThePlanSays() throws {
        let disk = SimulatedDisk(files: ["c/doc": [1]])
        disk.cutPower(SimulatedDisk.PowerCut(flush: 2) { $0 == 0 })
        disk.write("c/a", [2])
        disk.sync("c/a")                       // flush 1: made durable
        disk.write("c/b", [3])
        disk.write("c/doc", [4])
        disk.sync("c/doc")                     // flush 2: the power fails first
        #expect(disk.files == ["c/doc": [1], "c/a": [2], "c/b": [3]])
        #expect(disk.lastCut?.kept == 1 && disk.lastCut?.dropped == 1)
        #expect(disk.generation == 1 && disk.flushes == 2)
    }
}

struct ExtensionStoreTests {
    /// `storage.local` is a file written whole and renamed into place, stopping at each step;
    /// `storage.session` is Safari's memory: written at once, with no step a fault can stop.
    @Test func onlyTheLocalStoreStopsAtYieldPoints() throws {
        let disk = SimulatedDisk(files: [:])
        var store = ExtensionStore(files: SimulatedExtensionFolder(disk: disk, location: SimulatedExtensionFolder.folder), gate: RecordingGate())
        try store.saveSession(SessionStorage(pausedUntil: 5).json)
        #expect(store.gate.points.isEmpty)
        try store.save(LocalStorage().json, as: "local.json")
        #expect(store.gate.points == [.storageWriteTemp, .storageRename])
        #expect(store.loadSession()?.pausedUntil == 5)
        #expect(store.gate.points == [.storageWriteTemp, .storageRename])
        _ = try store.loadLocal()
        #expect(store.gate.points == [.storageWriteTemp, .storageRename, .storageRead])
    }
}
