import Foundation
import LivelineStore
import Testing

/// The inbox: one record per user and dedupe key; resolve and read.
struct NotificationRepositoryTests {
    @Test(arguments: DatabaseFactory.all)
    func oneRecordPerUserAndDedupeKey(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            let bob = try store.makeUser("Bob")
            let create = { (user: UserRecord, key: String) in
                try store.database.write { transaction in
                    try store.notifications.create(
                        userID: user.id, title: "T", body: nil, icon: nil, link: "/x", dedupeKey: key, now: time(1), in: transaction
                    )
                }
            }
            let first = try #require(try create(ada, "k"))
            #expect(try create(ada, "k") == nil)
            #expect(try create(bob, "k") != nil, "the key is per user")
            #expect(try store.notifications.resolve(userID: ada.id, dedupeKey: "k"))
            #expect(try !store.notifications.resolve(userID: ada.id, dedupeKey: "other"))
            #expect(try store.notifications.markRead(id: first.id, userID: ada.id, now: time(5)))
            #expect(try !store.notifications.markRead(id: first.id, userID: bob.id, now: time(5)), "not Bob's")
            let record = try #require(try store.notifications.notifications(userID: ada.id).first)
            #expect(record.resolved && record.readAt == time(5) && record.link == "/x")
            #expect(try store.notifications.notifications(userID: bob.id).first?.resolved == false)
        }
    }
}
