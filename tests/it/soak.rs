//! A seeded soak of three `printdex serve` processes sharing one index over a copy of
//! the library fixture: notes, row counts and descriptions edited (in place or by an
//! atomic rename), annotation files removed and restored, table directories moved out
//! and back, tables dropped from the manifest and listed again, files made unparsable
//! and mended, calls made on any server at any moment,
//! servers stopped a while (SIGSTOP, so that their view of the print falls behind the
//! others') and servers killed with SIGKILL and started again. At every checkpoint each server
//! answers every call that the edits can change exactly as a server over a fresh index
//! does, and at the end so does a server started over the shared index.
//!
//! `PRINTDEX_SOAK_SEEDS` picks the seeds (`1-20`, `4`, `1,5,9`); the test run in CI takes
//! a few fixed ones, the ignored one twenty.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::write_atomically;
use crate::util::{copy_dir, fixtures, Server};

const SERVERS: usize = 3;
/// Edits (and kills) between two checkpoints.
const STEPS: usize = 8;
const CHECKPOINTS: usize = 3;

/// Seeds the CI run takes when `PRINTDEX_SOAK_SEEDS` is not set.
const CI_SEEDS: &[u64] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

#[test]
fn three_servers_on_one_index_answer_as_a_fresh_index_through_a_seeded_soak() {
    for seed in seeds().unwrap_or_else(|| CI_SEEDS.to_vec()) {
        Soak::new(seed).run();
    }
}

#[test]
#[ignore = "long: run with --ignored"]
fn three_servers_on_one_index_answer_as_a_fresh_index_through_twenty_seeds() {
    for seed in seeds().unwrap_or_else(|| (1..=20).collect()) {
        Soak::new(seed).run();
    }
}

/// `PRINTDEX_SOAK_SEEDS` read as a range (`1-20`) or a list (`1,5,9`).
fn seeds() -> Option<Vec<u64>> {
    let text = std::env::var("PRINTDEX_SOAK_SEEDS").ok()?;
    let parse = |s: &str| {
        s.trim()
            .parse::<u64>()
            .expect("PRINTDEX_SOAK_SEEDS: numbers")
    };
    Some(match text.split_once('-') {
        Some((from, to)) => (parse(from)..=parse(to)).collect(),
        None => text.split(',').map(parse).collect(),
    })
}

/// One table of the print: its name and directory.
#[derive(Clone)]
struct Table {
    fqn: String,
    dir: PathBuf,
}

impl Table {
    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// What is to be put back: a file removed or made unparsable, a directory moved out.
enum Undo {
    Write { path: PathBuf, bytes: Vec<u8> },
    MoveBack { from: PathBuf, to: PathBuf },
}

struct Soak {
    seed: u64,
    rng: fastrand::Rng,
    project: tempfile::TempDir,
    index: tempfile::TempDir,
    aside: tempfile::TempDir,
    tables: Vec<Table>,
    servers: Vec<Server>,
    /// By table: what puts it back as the fixture has it (at most one thing at a time),
    /// and in how many steps.
    pending: HashMap<String, (Undo, u8)>,
    /// Stopped servers, by index: how many more steps they stay stopped.
    paused: HashMap<usize, u8>,
    edits: u64,
    /// What was done, for the message of a failure.
    log: Vec<String>,
}

impl Soak {
    fn new(seed: u64) -> Soak {
        let project = tempfile::tempdir().unwrap();
        copy_dir(&fixtures().join("library"), project.path());
        let stacks = project.path().join("prints/library/stacks");
        let mut tables = Vec::new();
        for schema in sorted_dir(&stacks) {
            for table in sorted_dir(&schema) {
                let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
                tables.push(Table {
                    fqn: format!("stacks.{}.{}", name(&schema), name(&table)),
                    dir: table,
                });
            }
        }
        assert_eq!(tables.len(), 11, "the library fixture's tables");
        let index = tempfile::tempdir().unwrap();
        let servers = (0..SERVERS)
            .map(|_| Server::start_in(project.path(), &[], Some(index.path())))
            .collect();
        Soak {
            seed,
            rng: fastrand::Rng::with_seed(seed),
            project,
            index,
            aside: tempfile::tempdir().unwrap(),
            tables,
            servers,
            pending: HashMap::new(),
            paused: HashMap::new(),
            edits: 0,
            log: Vec::new(),
        }
    }

    fn run(mut self) {
        for checkpoint in 0..CHECKPOINTS {
            for _ in 0..STEPS {
                self.step();
                // Sometimes at once, sometimes after the watchers have had a look.
                std::thread::sleep(Duration::from_millis(self.rng.u64(0..120)));
                if self.rng.u8(0..3) == 0 {
                    self.call_anywhere();
                }
            }
            self.resume(|_| true);
            if checkpoint == CHECKPOINTS - 1 {
                // The last checkpoint with everything put back, the others as they are.
                let undo: Vec<String> = self.pending.keys().cloned().collect();
                for fqn in undo {
                    self.put_back(&fqn);
                }
            }
            self.check(&format!("checkpoint {checkpoint}"));
        }
        // A server started afterwards over the index the others leave.
        let expected = answers(&mut Server::start(self.project.path(), &[]), &self.tables);
        let mut late = Server::start_in(self.project.path(), &[], Some(self.index.path()));
        self.assert_same(
            &answers(&mut late, &self.tables),
            &expected,
            "a late server",
        );
    }

    /// One change to the print, or one server killed and started again.
    fn step(&mut self) {
        for left in self.paused.values_mut() {
            *left = left.saturating_sub(1);
        }
        self.resume(|left| left == 0);
        for (_, left) in self.pending.values_mut() {
            *left = left.saturating_sub(1);
        }
        let due: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, (_, left))| *left == 0)
            .map(|(fqn, _)| fqn.clone())
            .collect();
        for fqn in due {
            self.put_back(&fqn);
        }
        let table = self.tables[self.rng.usize(..self.tables.len())].clone();
        if self.pending.contains_key(&table.fqn) {
            // A table set aside: its edits wait until it is back.
            return self.pause_one();
        }
        match self.rng.u8(0..11) {
            0 | 1 => self.edit_count(&table),
            2 | 3 => self.edit_note(&table),
            4 => self.edit_description(&table),
            5 => self.remove_annotations(&table),
            6 => self.move_out(&table),
            7 => self.make_unparsable(&table),
            8 => self.drop_from_manifest(&table),
            9 => self.pause_one(),
            _ => self.kill_one(),
        }
    }

    /// Write `content` over `path`, in place or by an atomic rename.
    fn write(&mut self, path: &Path, content: &str) {
        if self.rng.bool() {
            write_atomically(path, content);
        } else {
            std::fs::write(path, content).unwrap();
        }
    }

    fn edit_count(&mut self, table: &Table) {
        let path = table.file("statistics.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        let rows = self.rng.u32(1..100_000);
        let edited: Vec<String> = text
            .lines()
            .map(|l| match l.starts_with("row_count: ") {
                true => format!("row_count: {rows}"),
                false => l.to_string(),
            })
            .collect();
        self.write(&path, &(edited.join("\n") + "\n"));
        self.log.push(format!("{}: row_count {rows}", table.fqn));
    }

    fn edit_note(&mut self, table: &Table) {
        let path = table.file("statistics.annotations.yaml");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return self.edit_count(table);
        };
        self.edits += 1;
        let note = format!("    note: soak {} edit {}", self.seed, self.edits);
        let mut done = false;
        let edited: Vec<String> = text
            .lines()
            .map(|l| match !done && l.starts_with("    note: ") {
                true => {
                    done = true;
                    note.clone()
                }
                false => l.to_string(),
            })
            .collect();
        self.write(&path, &(edited.join("\n") + "\n"));
        self.log.push(format!("{}: note {}", table.fqn, self.edits));
    }

    fn edit_description(&mut self, table: &Table) {
        let path = table.file("description.md");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return self.edit_note(table);
        };
        self.edits += 1;
        let text = format!("{text}\nSoak {} edit {}.\n", self.seed, self.edits);
        self.write(&path, &text);
        self.log
            .push(format!("{}: description {}", table.fqn, self.edits));
    }

    fn remove_annotations(&mut self, table: &Table) {
        let path = table.file("statistics.annotations.yaml");
        let Ok(bytes) = std::fs::read(&path) else {
            return self.make_unparsable(table);
        };
        std::fs::remove_file(&path).unwrap();
        self.set_aside(table, Undo::Write { path, bytes });
        self.log.push(format!("{}: annotations removed", table.fqn));
    }

    fn make_unparsable(&mut self, table: &Table) {
        let path = table.file("statistics.yaml");
        let bytes = std::fs::read(&path).unwrap();
        self.write(&path, "row_count: [unclosed\ncolumns: {\n");
        self.set_aside(table, Undo::Write { path, bytes });
        self.log
            .push(format!("{}: statistics unparsable", table.fqn));
    }

    fn move_out(&mut self, table: &Table) {
        let to = self.aside.path().join(&table.fqn);
        std::fs::rename(&table.dir, &to).unwrap();
        let back = Undo::MoveBack {
            from: to,
            to: table.dir.clone(),
        };
        self.set_aside(table, back);
        self.log.push(format!("{}: moved out", table.fqn));
    }

    /// The manifest without `table`'s entry; listed again within a few steps. One table at
    /// a time: putting the manifest's bytes back must not undo another table's drop.
    fn drop_from_manifest(&mut self, table: &Table) {
        let path = self.project.path().join("prints/library/manifest.yaml");
        let held = |undo: &Undo| matches!(undo, Undo::Write { path: p, .. } if *p == path);
        if self.pending.values().any(|(undo, _)| held(undo)) {
            return self.edit_count(table);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let entry = format!("  {}:", table.fqn);
        let mut inside = false;
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| {
                if *l == entry {
                    inside = true;
                } else if inside && !l.starts_with("    ") {
                    inside = false;
                }
                !inside
            })
            .collect();
        assert!(
            kept.len() < text.lines().count(),
            "{entry} not in the manifest"
        );
        self.write(&path, &(kept.join("\n") + "\n"));
        self.set_aside(
            table,
            Undo::Write {
                path,
                bytes: text.into_bytes(),
            },
        );
        self.log
            .push(format!("{}: dropped from the manifest", table.fqn));
    }

    /// Note what puts `table` back, done within the next few steps.
    fn set_aside(&mut self, table: &Table, undo: Undo) {
        let steps = self.rng.u8(1..4);
        self.pending.insert(table.fqn.clone(), (undo, steps));
    }

    fn put_back(&mut self, fqn: &str) {
        match self.pending.remove(fqn).map(|(undo, _)| undo) {
            Some(Undo::Write { path, bytes }) => {
                let text = String::from_utf8(bytes).unwrap();
                self.write(&path, &text);
            }
            Some(Undo::MoveBack { from, to }) => std::fs::rename(from, to).unwrap(),
            None => return,
        }
        self.log.push(format!("{fqn}: put back"));
    }

    /// Stop one running server (SIGSTOP) for the next few steps: it wakes to a print
    /// that moved on and an index other servers wrote meanwhile. One stopped while it
    /// holds the writer lock makes the others answer from a private index meanwhile.
    fn pause_one(&mut self) {
        let running: Vec<usize> = (0..self.servers.len())
            .filter(|i| !self.paused.contains_key(i))
            .collect();
        if running.len() < 2 {
            return;
        }
        let i = running[self.rng.usize(..running.len())];
        self.servers[i].signal("-STOP");
        self.paused.insert(i, self.rng.u8(1..4));
        self.log.push(format!("server {i} stopped"));
    }

    /// Resume (SIGCONT) the stopped servers whose remaining steps `due` says are over.
    fn resume(&mut self, due: impl Fn(u8) -> bool) {
        let woken: Vec<usize> = self
            .paused
            .iter()
            .filter(|(_, left)| due(**left))
            .map(|(i, _)| *i)
            .collect();
        for i in woken {
            self.paused.remove(&i);
            self.servers[i].signal("-CONT");
            self.log.push(format!("server {i} resumed"));
        }
    }

    /// SIGKILL one server, at whatever it is doing, and start another in its place.
    fn kill_one(&mut self) {
        let i = self.rng.usize(..self.servers.len());
        self.paused.remove(&i);
        self.servers[i].signal("-KILL");
        let fresh = Server::start_in(self.project.path(), &[], Some(self.index.path()));
        std::mem::replace(&mut self.servers[i], fresh).wait();
        self.log.push(format!("server {i} killed"));
    }

    /// A call on any server while the print changes: calls write too.
    fn call_anywhere(&mut self) {
        let running: Vec<usize> = (0..self.servers.len())
            .filter(|i| !self.paused.contains_key(i))
            .collect();
        let i = running[self.rng.usize(..running.len())];
        let table = &self.tables[self.rng.usize(..self.tables.len())];
        let (tool, args) = match self.rng.u8(0..3) {
            0 => ("search_columns", json!({"text": "soak"})),
            1 => ("get_table_context", json!({"table": table.fqn})),
            _ => ("list_tables", json!({"detail": true})),
        };
        let (text, _) = self.servers[i].call(tool, args);
        assert!(!text.is_empty());
    }

    /// Every server answers as a server over a fresh index does.
    fn check(&mut self, at: &str) {
        let expected = answers(&mut Server::start(self.project.path(), &[]), &self.tables);
        for i in 0..self.servers.len() {
            let got = answers(&mut self.servers[i], &self.tables);
            self.assert_same(&got, &expected, &format!("{at}, server {i}"));
        }
    }

    fn assert_same(&self, got: &[(String, Value)], expected: &[(String, Value)], who: &str) {
        assert_eq!(got.len(), expected.len());
        for ((call, got), (_, expected)) in got.iter().zip(expected) {
            assert!(
                got == expected,
                "seed {}, {who}: {call} differs from a fresh index's answer\n\
                 got:      {got}\nexpected: {expected}\nsteps: {:?}",
                self.seed,
                self.log
            );
        }
    }
}

fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// Every answer the soak's edits can change, by call, with what legitimately differs
/// between two servers (cursors, the clock's ages) masked.
fn answers(server: &mut Server, tables: &[Table]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut ask = |server: &mut Server, tool: &str, args: Value| {
        let pages = every_page(server, tool, args.clone());
        out.push((format!("{tool} {args}"), Value::Array(pages)));
    };
    ask(server, "list_tables", json!({"detail": true}));
    for args in [
        json!({"text": "soak"}),
        json!({"text": "loan"}),
        json!({"pattern": "*"}),
        json!({"pattern": "*_id", "candidate_key": true}),
    ] {
        ask(server, "search_columns", args);
    }
    for (table, column, text) in [
        ("stacks.lending.loans", "status", "Returned"),
        ("stacks.members.patrons", "status", "active"),
    ] {
        let args = json!({"table": table, "column": column, "text": text});
        ask(server, "resolve_value", args);
    }
    for table in tables {
        for purpose in ["profile", "query"] {
            ask(
                server,
                "get_table_context",
                json!({"table": table.fqn, "purpose": purpose}),
            );
        }
    }
    let listed = server.request("resources/list", json!({}));
    out.push(("resources/list".into(), masked(listed["result"].clone())));
    out
}

/// Every page of a call, masked, following its cursor (a JSON reply's `next_cursor`, or
/// a Markdown page's marker); an error answer is one page of its own.
fn every_page(server: &mut Server, tool: &str, mut args: Value) -> Vec<Value> {
    const MARKER: &str = "\n<!-- next_cursor: ";
    let mut pages = Vec::new();
    loop {
        let (text, is_error) = server.call(tool, args.clone());
        if is_error {
            pages.push(json!({"error": text}));
            return pages;
        }
        let (page, next) = match serde_json::from_str::<Value>(&text) {
            Ok(page) => {
                let next = page["next_cursor"].as_str().map(str::to_string);
                (masked(page), next)
            }
            Err(_) => match text.rfind(MARKER).filter(|_| text.ends_with(" -->")) {
                Some(at) => {
                    let cursor = text[at + MARKER.len()..text.len() - " -->".len()].to_string();
                    (Value::String(text[..at].to_string()), Some(cursor))
                }
                None => (Value::String(text), None),
            },
        };
        pages.push(page);
        match next {
            Some(cursor) => args["cursor"] = json!(cursor),
            None => return pages,
        }
    }
}

/// `value` without its cursors and the clock's ages.
fn masked(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !matches!(k.as_str(), "next_cursor" | "nextCursor" | "age_days"))
                .map(|(k, v)| (k, masked(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(masked).collect()),
        other => other,
    }
}
