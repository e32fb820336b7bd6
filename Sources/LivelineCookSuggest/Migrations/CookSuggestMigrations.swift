import LivelineStore

/// The meal-planning feature's tables, recorded under the name `cooksuggest`.
enum CookSuggestMigrations {
    static let all = [tables]

    /// Sessions (at most one open per pair and day: `open_pair` names household, initiator,
    /// partner and day while the initiator is still in the session and it is not final, so a
    /// double-submitted create finds the first, and an initiator who left can start anew), their
    /// participants and proposals, and the jobs that carry a session on without a
    /// request (the invitation, generating the proposals, finalizing): each job a row, so a server
    /// killed halfway does it after its restart, and a lease, so two instances never do one twice
    /// at once.
    static let tables = Migration(
        version: 1, name: "cooksuggest: sessions, participants, proposals, jobs",
        sql: """
            CREATE TABLE cook_suggest_sessions (
                id TEXT PRIMARY KEY,
                household_id BIGINT NOT NULL REFERENCES households (id),
                day TEXT NOT NULL,
                initiator_id BIGINT NOT NULL REFERENCES users (id),
                partner_id BIGINT REFERENCES users (id),
                open_pair TEXT,
                state TEXT NOT NULL
                    CHECK (state IN ('answering', 'generating', 'proposed', 'finalizing', 'decided', 'cancelled')),
                rev BIGINT NOT NULL,
                decided_recipe_id TEXT,
                cancel_reason TEXT,
                created_at BIGINT NOT NULL,
                active_at BIGINT NOT NULL,
                ended_at BIGINT
            );
            CREATE INDEX cook_suggest_sessions_open ON cook_suggest_sessions (active_at) WHERE ended_at IS NULL;
            CREATE UNIQUE INDEX cook_suggest_sessions_open_pair ON cook_suggest_sessions (open_pair);
            CREATE INDEX cook_suggest_sessions_decided ON cook_suggest_sessions (household_id, ended_at) WHERE state = 'decided';
            CREATE TABLE cook_suggest_participants (
                session_id TEXT NOT NULL REFERENCES cook_suggest_sessions (id),
                user_id BIGINT NOT NULL REFERENCES users (id),
                role TEXT NOT NULL CHECK (role IN ('initiator', 'partner')),
                joined INTEGER NOT NULL CHECK (joined IN (0, 1)),
                present INTEGER NOT NULL CHECK (present IN (0, 1)),
                ready INTEGER NOT NULL CHECK (ready IN (0, 1)),
                answers TEXT NOT NULL,
                pick TEXT,
                confirmed TEXT,
                PRIMARY KEY (session_id, user_id)
            );
            CREATE TABLE cook_suggest_proposals (
                session_id TEXT NOT NULL REFERENCES cook_suggest_sessions (id),
                position INTEGER NOT NULL,
                recipe_id TEXT NOT NULL,
                score DOUBLE PRECISION NOT NULL,
                reasons TEXT NOT NULL,
                PRIMARY KEY (session_id, position)
            );
            CREATE TABLE cook_suggest_jobs (
                session_id TEXT NOT NULL REFERENCES cook_suggest_sessions (id),
                kind TEXT NOT NULL CHECK (kind IN ('invite', 'generate', 'finalize')),
                due_at BIGINT NOT NULL,
                lease_until BIGINT,
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                done_at BIGINT,
                PRIMARY KEY (session_id, kind)
            );
            CREATE INDEX cook_suggest_jobs_due ON cook_suggest_jobs (due_at) WHERE done_at IS NULL;
            """)
}
