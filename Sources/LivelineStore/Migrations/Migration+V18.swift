extension Migration {
    /// Who may follow a context, kept on its row (`docs/engine.md`, "The transactional outbox and
    /// the dispatcher"): `contexts.follow_epoch` goes up whenever a context may have gained a
    /// follower (an active `la-update` token or a linked channel; triggers, so every writer of
    /// every build counts), and `contexts.quiet_epoch` records the epoch at which a claim found
    /// nobody following. While the two are equal a change writes no sync row. Two defaulted
    /// columns and triggers: older builds name neither column, and their writes bump the epoch
    /// too. On PostgreSQL `contexts` also keeps half of each page free: its rows are updated in
    /// place many times a second, and a page's chain of old row versions is pruned once its free
    /// space falls below that reserve (PostgreSQL documentation, "CREATE TABLE", `fillfactor`;
    /// docs/performance.md, "Writes").
    static let v18 = Migration(
        version: 18, name: "contexts: who may follow them", compatibility: .expand,
        sql: """
            ALTER TABLE contexts ADD COLUMN follow_epoch BIGINT NOT NULL DEFAULT 0;
            ALTER TABLE contexts ADD COLUMN quiet_epoch BIGINT;
            """,
        sqlByDialect: [
            .sqlite: """
            CREATE TRIGGER push_tokens_follow_insert AFTER INSERT ON push_tokens
            WHEN NEW.kind = 'la-update' AND NEW.status = 'active' AND NEW.context_key IS NOT NULL
            BEGIN UPDATE contexts SET follow_epoch = follow_epoch + 1 WHERE key = NEW.context_key; END;
            CREATE TRIGGER push_tokens_follow_update AFTER UPDATE ON push_tokens
            WHEN NEW.kind = 'la-update' AND NEW.status = 'active' AND NEW.context_key IS NOT NULL
                AND (OLD.status <> 'active' OR OLD.kind <> 'la-update' OR OLD.context_key IS NOT NEW.context_key)
            BEGIN UPDATE contexts SET follow_epoch = follow_epoch + 1 WHERE key = NEW.context_key; END;
            CREATE TRIGGER context_channels_follow_insert AFTER INSERT ON context_channels
            BEGIN UPDATE contexts SET follow_epoch = follow_epoch + 1 WHERE key = NEW.context_key; END;
            CREATE TRIGGER context_channels_follow_update AFTER UPDATE ON context_channels
            BEGIN UPDATE contexts SET follow_epoch = follow_epoch + 1 WHERE key = NEW.context_key; END;
            """,
            .postgres: """
            ALTER TABLE contexts SET (fillfactor = 50);
            -- Bound to the schema it is created in: a session with another search_path (an operator in
            -- psql) still raises this schema's epoch.
            CREATE FUNCTION contexts_may_be_followed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
            BEGIN
                UPDATE contexts SET follow_epoch = follow_epoch + 1 WHERE key = NEW.context_key;
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER push_tokens_follow_insert AFTER INSERT ON push_tokens FOR EACH ROW
            WHEN (NEW.kind = 'la-update' AND NEW.status = 'active' AND NEW.context_key IS NOT NULL)
            EXECUTE FUNCTION contexts_may_be_followed();
            CREATE TRIGGER push_tokens_follow_update AFTER UPDATE ON push_tokens FOR EACH ROW
            WHEN (NEW.kind = 'la-update' AND NEW.status = 'active' AND NEW.context_key IS NOT NULL
                AND (OLD.status <> 'active' OR OLD.kind <> 'la-update' OR OLD.context_key IS DISTINCT FROM NEW.context_key))
            EXECUTE FUNCTION contexts_may_be_followed();
            CREATE TRIGGER context_channels_follow AFTER INSERT OR UPDATE ON context_channels FOR EACH ROW
            EXECUTE FUNCTION contexts_may_be_followed();
            """,
        ])
}
