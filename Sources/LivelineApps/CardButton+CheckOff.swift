import Foundation
import LivelineDevices
import LivelineModel
import LivelineShoppingModel

extension CardButton {
    /// The ✓ beside the first of `nextOpen` on the shopping card, in the Dynamic Island expanded:
    /// `PATCH /api/shopping/items/{id}` with `done: true` by the device's user
    /// (docs/features/shopping.md, docs/devices.md "Buttons on the card").
    public static let checkOffFirstOpen = CardButton(name: "check off") { activity in
        guard activity.attributesType == ShoppingActivityAttributes.typeName,
            let shown = try? JSONDecoder().decode(ShoppingActivityAttributes.ContentState.self, from: activity.contentState.compactJSON),
            let first = shown.nextOpen.first
        else { return nil }
        let intent = AppIntent(name: "checked off item \(first.id)") { client, device in
            let answer = try await client.updateShoppingItem(id: first.id, UpdateShoppingItemRequest(done: true, by: device.userID))
            return "rev \(answer.rev)"
        }
        return Press(pressed: "the user checked off \(first.label) (item \(first.id)) in the Dynamic Island", intent: intent)
    }
}
