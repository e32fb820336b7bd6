import Foundation
import LivelineClient
import LivelineModel
import Synchronization
import Testing

/// The snapshot store the extensions read: atomic writes, one safe file per key, the reload hook.
@Suite struct SharedSnapshotStoreTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("liveline-snapshots-\(UUID().uuidString)")
    }

    @Test func aReaderNeverSeesATornFile() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reloads = Mutex<[String]>([])
        let store = SharedSnapshotStore(folder: folder) { key in reloads.withLock { $0.append(key) } }
        // Two versions large enough that a write takes many system calls.
        let versions = ["a", "b"].map { String(repeating: $0, count: 400_000) }
        try store.write(Snapshot(contextKey: "shopping:1:2026-01-05", rev: 0, state: versions[0], ended: false, receivedAt: Date()))
        let done = Mutex(false)
        let problems = Mutex<[String]>([])
        let reads = Mutex(0)
        let reader = Thread {
            while !done.withLock({ $0 }) {
                do {
                    guard let snapshot = try store.read(String.self, contextKey: "shopping:1:2026-01-05") else {
                        problems.withLock { $0.append("missing") }
                        continue
                    }
                    if snapshot.state != versions[snapshot.rev % 2] { problems.withLock { $0.append("rev \(snapshot.rev) has the other state") } }
                    reads.withLock { $0 += 1 }
                } catch {
                    problems.withLock { $0.append("\(error)") }
                }
            }
        }
        reader.start()
        for rev in 1...150 {
            try store.write(Snapshot(contextKey: "shopping:1:2026-01-05", rev: rev, state: versions[rev % 2], ended: false, receivedAt: Date()))
            if rev == 75 {
                // Halfway, the reader gets to read (on a busy machine its thread may not have run
                // yet), so it reads while the writes go on.
                let deadline = Date().addingTimeInterval(20)
                while reads.withLock({ $0 }) == 0 && Date() < deadline { usleep(1000) }
            }
        }
        done.withLock { $0 = true }
        while !reader.isFinished { usleep(1000) }
        let seenProblems = problems.withLock { $0 }
        let readCount = reads.withLock { $0 }
        let reloaded = reloads.withLock { $0 }
        #expect(seenProblems.count == 0, "\(seenProblems.count) bad reads, e.g. \(seenProblems.prefix(2))")
        #expect(readCount > 0)
        #expect(reloaded.count == 151 && reloaded.allSatisfy { $0 == "shopping:1:2026-01-05" })
        #expect(try store.read(String.self, contextKey: "shopping:1:2026-01-05")?.rev == 150)
    }

    @Test func everyKeyIsOneSafeFileAndAReconcilerStartsFromTheStore() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = SharedSnapshotStore(folder: folder)
        #expect(store.file(for: "trip:42").lastPathComponent == "trip%3A42.json")
        #expect(store.file(for: "../../etc/passwd").deletingLastPathComponent().path == folder.path)
        #expect(try store.read(Int.self, contextKey: "nothing") == nil)
        try store.write(Snapshot(contextKey: "trip:42", rev: 7, state: 70, ended: false, receivedAt: Date(timeIntervalSince1970: 1_767_000_000)))
        let loaded = try #require(try store.read(Int.self, contextKey: "trip:42"))
        #expect(loaded.rev == 7 && loaded.state == 70 && loaded.receivedAt == Date(timeIntervalSince1970: 1_767_000_000))

        // A reconciler starts from what the store holds and never goes below it.
        let reconciler = Reconciler<Int>(
            contextKey: "trip:42", pull: { _ in .snapshot(Snapshot(contextKey: "trip:42", rev: 6, state: 60, ended: false, receivedAt: Date())) },
            store: store
        )
        #expect(await reconciler.snapshot?.rev == 7)
        guard case .stale(let rev) = await reconciler.reconcile() else {
            Issue.record("an older answer is stale")
            return
        }
        let stored = try store.read(Int.self, contextKey: "trip:42")
        #expect(rev == 6 && stored?.rev == 7)
    }
}
