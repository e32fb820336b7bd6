extension Migration {
    /// WidgetKit push tokens (`docs/engine.md`, "Widget pushes"):
    /// - `push_tokens.widget_kinds`: the kinds of the widgets a `widgets` token serves, as a JSON
    ///   array of strings (null for every other kind);
    /// - `push_tokens.widget_push_at`: when the newest widget push enqueued for the token is due,
    ///   which paces the next one (at most one per interval per device);
    /// - an index to find a household's active widget tokens on every change.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    static let v14 = Migration(
        version: 14, name: "widget push tokens: the widget kinds they serve, their pacing",
        sql: """
            ALTER TABLE push_tokens ADD COLUMN widget_kinds TEXT;
            ALTER TABLE push_tokens ADD COLUMN widget_push_at BIGINT;
            CREATE INDEX push_tokens_widgets ON push_tokens (household_id) WHERE kind = 'widgets' AND status = 'active';
            """)
}
