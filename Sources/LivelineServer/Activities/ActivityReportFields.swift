import LivelineAPI

/// The input fields of the app's activity reports, declared once (``FieldRule``).
enum ActivityReportFields {
    static let contextKey = CommonFields.contextKey.named("context_key")
    static let rev = FieldRule("rev", .integer(0...Int(Int32.max)), about: "the revision the device rendered")
}
