import LivelineDevices

extension DeviceFleet {
    /// The user checks off the first open item from the shopping card in the Dynamic Island
    /// (``CardButton/checkOffFirstOpen``); the app sends it through the real API and pulls the card.
    public func checkOffFromDynamicIsland(device id: String, contextKey: String) {
        press(.checkOffFirstOpen, device: id, contextKey: contextKey)
    }
}
