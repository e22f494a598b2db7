-- The printdex mirror: every served print file, its identity and content hash, and its
-- parsed form, so that no request parses YAML or walks a print directory.
-- Loaded by the binary at startup (include_str!); bump `schema_version` in `meta` on change:
-- a mirror of another version is discarded and rebuilt (it is a cache).

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per file a served print holds or its manifest declares.
CREATE TABLE IF NOT EXISTS files (
    path         TEXT PRIMARY KEY,      -- absolute path
    connection   TEXT NOT NULL,
    fqn          TEXT,                  -- NULL for a connection-level file
    kind         TEXT NOT NULL,         -- manifest, diff, reading, manifest_annotations, ddl, statistics, ...
    mtime_ns     INTEGER,               -- NULL when absent
    size         INTEGER,
    inode        INTEGER,
    settled      INTEGER,               -- 1 when the identity was taken a tick after mtime (see FileIdentity)
    hash         TEXT,                  -- blake3 of the content, hex; NULL when absent
    parse_status TEXT NOT NULL,         -- ok | split | yaml_error | other_error | text | absent
    parse_error  TEXT,                  -- the exact error text when it did not parse
    parsed       BLOB,                  -- the parsed value (compat::value::packed, sharing kept); a description's text
    generation   INTEGER NOT NULL DEFAULT 0  -- the connection's generation (below) that last wrote the row
);
CREATE INDEX IF NOT EXISTS files_by_table ON files (connection, fqn);
-- A warm start compares every file's identity with the stored one: this index covers that
-- read, so it never touches the rows' parsed values.
CREATE INDEX IF NOT EXISTS files_identity ON files (connection, path, mtime_ns, size, inode, settled, hash);
-- A writer whose view is older than the connection's generation reads the rows written since.
CREATE INDEX IF NOT EXISTS files_by_generation ON files (connection, generation);

-- One row per connection: a count of the transactions that wrote its rows. Several processes
-- share one index; each keeps its own view of the rows, and a writer whose view is of an
-- older generation catches up (the rows written since, or the whole connection when
-- `reshaped` is newer) before it stores anything derived from that view.
CREATE TABLE IF NOT EXISTS generations (
    connection TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    reshaped   INTEGER NOT NULL         -- the generation that last removed rows or changed the tables
);

-- The items of a split file's top-level list (diff.yaml's `changes`), kept apart so that a
-- large diff is never held parsed whole: its `files` row says `split` and holds the rest of
-- the document with the list empty; the items are here under its content hash, in order.
CREATE TABLE IF NOT EXISTS file_items (
    hash   TEXT NOT NULL,
    ord    INTEGER NOT NULL,
    parsed BLOB NOT NULL,               -- one item (compat::value::packed)
    PRIMARY KEY (hash, ord)
) WITHOUT ROWID;

-- One row per served connection: how its manifest reads.
CREATE TABLE IF NOT EXISTS connections (
    name            TEXT PRIMARY KEY,
    print_root      TEXT NOT NULL,
    manifest_state  TEXT NOT NULL,      -- absent | unparseable | malformed | ok
    manifest_reason TEXT,
    dropped         TEXT NOT NULL,      -- JSON list of entries no reader can follow
    fingerprint     TEXT NOT NULL,      -- blake3 of the scan's outcome: an unchanged rescan writes nothing
    walk            TEXT                -- what the last walk for symlinks depended on (ingest::walk::WalkMemo, as
                                        -- store/mirror/walk.rs encodes it, a BLOB): while every directory keeps
                                        -- its identity, a start need not walk again
);

-- One row per walkable manifest entry (the entry itself is the manifest's, in its row).
CREATE TABLE IF NOT EXISTS tables (
    connection TEXT NOT NULL,
    fqn        TEXT NOT NULL,
    table_dir  TEXT NOT NULL,
    PRIMARY KEY (connection, fqn)
);

-- One row per file of a served pz project that pz reads (project.yml, connections.yml,
-- pipelines/**/*.sql and their sidecars, .pz/state, .pz/runs/*/run_results.json,
-- .pz/target/manifest.json): its identity and its bytes, so a restart re-reads only what
-- moved. The parse is rebuilt from the bytes at ingest (it is cheap beside reading).
CREATE TABLE IF NOT EXISTS pz_files (
    project  TEXT NOT NULL,             -- the project directory, absolute
    rel      TEXT NOT NULL,             -- project-relative path, forward slashes
    mtime_ns INTEGER NOT NULL,
    size     INTEGER NOT NULL,
    inode    INTEGER NOT NULL,
    settled  INTEGER NOT NULL,          -- as files.settled
    hash     TEXT NOT NULL,             -- blake3 of bytes, hex
    bytes    BLOB NOT NULL,
    PRIMARY KEY (project, rel)
);
