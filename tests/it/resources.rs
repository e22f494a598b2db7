//! resources/list, resources/templates/list and resources/read end to end: the library
//! print, copies of it changed while the server runs, and small synthetic prints.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util::{fixtures, library, Server};

const PAGE: usize = 20_000;

fn read(server: &mut Server, uri: &str) -> Value {
    server.request("resources/read", json!({ "uri": uri }))
}

/// The one content of a successful read.
fn content(response: &Value) -> &Value {
    assert!(
        response.get("error").is_none(),
        "read failed: {}",
        response["error"]
    );
    let contents = response["result"]["contents"].as_array().expect("contents");
    assert_eq!(contents.len(), 1);
    &contents[0]
}

fn text(response: &Value) -> String {
    content(response)["text"]
        .as_str()
        .expect("text")
        .to_string()
}

/// `(code, message)` of a failed read.
fn error(response: &Value) -> (i64, String) {
    let e = &response["error"];
    assert!(e.is_object(), "expected an error, got {response}");
    (
        e["code"].as_i64().unwrap(),
        e["message"].as_str().unwrap().to_string(),
    )
}

/// Every page of a resource: the texts, the version page 1 reported, the page count.
fn read_all(server: &mut Server, uri: &str) -> (Vec<String>, String, usize) {
    let first = read(server, uri);
    let meta = content(&first)["_meta"].clone();
    let version = meta["version"].as_str().unwrap().to_string();
    let pages = meta["pages"].as_u64().unwrap() as usize;
    assert_eq!(meta["page"], 1);
    let mut texts = vec![text(&first)];
    for n in 2..=pages {
        let r = read(server, &format!("{uri}?page={n}&version={version}"));
        let m = &content(&r)["_meta"];
        assert_eq!(m["page"], n as u64);
        assert_eq!(m["pages"], pages as u64);
        assert_eq!(m["version"], version.as_str());
        texts.push(text(&r));
    }
    (texts, version, pages)
}

/// Python's text-mode read: universal newlines.
fn on_disk(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .replace("\r\n", "\n")
        .replace('\r', "\n")
}

/// `len(json.dumps(text, ensure_ascii=False)) - 2`, written independently of the server's.
fn escaped_width(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            _ => 1,
        })
        .sum()
}

/// The library fixture project itself (read only).
fn library_fixture() -> PathBuf {
    fixtures().join("library")
}

fn library_file(rel: &str) -> PathBuf {
    library_fixture().join("prints/library").join(rel)
}

/// Every resources/list page's entries, following `nextCursor`.
fn list_all(server: &mut Server) -> (Vec<Value>, usize) {
    let mut entries = Vec::new();
    let mut pages = 0;
    let mut params = json!({});
    loop {
        let r = server.request("resources/list", params.clone());
        let result = &r["result"];
        assert!(result.is_object(), "resources/list failed: {r}");
        entries.extend(result["resources"].as_array().unwrap().iter().cloned());
        pages += 1;
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(c) => params = json!({ "cursor": c }),
            None => return (entries, pages),
        }
    }
}

#[test]
fn list_is_ordered_and_lists_peoples_files_only_when_present() {
    let mut server = Server::start(&library_fixture(), &[]);
    let (entries, _) = list_all(&mut server);
    let uris: Vec<&str> = entries.iter().map(|e| e["uri"].as_str().unwrap()).collect();
    assert_eq!(
        &uris[..6],
        &[
            "dbprint:///reference/spec",
            "dbprint:///reference/assertions",
            "dbprint://library/manifest",
            "dbprint://library/diff",
            "dbprint://library/reading",
            "dbprint://library/manifest_annotations",
        ]
    );
    // Tables in FQN order, kinds in the fixed order.
    let tables: Vec<(&str, &str)> = uris[6..]
        .iter()
        .map(|u| {
            let rest = u.strip_prefix("dbprint://library/").unwrap();
            rest.rsplit_once('/').unwrap()
        })
        .collect();
    let order = [
        "ddl",
        "statistics",
        "relationships",
        "description",
        "statistics_annotations",
        "relationships_annotations",
    ];
    for pair in tables.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let rank = |k: &str| order.iter().position(|o| *o == k).unwrap();
        assert!(
            a.0 < b.0 || (a.0 == b.0 && rank(a.1) < rank(b.1)),
            "{a:?} before {b:?}"
        );
    }
    // People's files appear exactly where they exist on disk.
    for (fqn, kind) in &tables {
        let dir = library_file(&fqn.replace('.', "/"));
        let file = match *kind {
            "description" => "description.md",
            "statistics_annotations" => "statistics.annotations.yaml",
            "relationships_annotations" => "relationships.annotations.yaml",
            _ => continue,
        };
        assert!(dir.join(file).is_file(), "{fqn} {kind} listed but absent");
    }
    assert!(tables.contains(&("stacks.lending.activity_log", "relationships_annotations")));
    assert!(!tables.contains(&("stacks.catalog.books", "description")));
    for e in &entries {
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 4, "{e}");
        assert!(e["description"].as_str().unwrap().len() > 40);
    }
    let patrons = entries
        .iter()
        .find(|e| e["uri"] == "dbprint://library/stacks.members.patrons/statistics")
        .unwrap();
    assert_eq!(patrons["name"], "stacks.members.patrons statistics");
    assert_eq!(patrons["mimeType"], "application/yaml");
}

#[test]
fn a_peoples_file_is_listed_while_it_exists_whatever_it_holds() {
    let dir = library();
    let description = dir
        .path()
        .join("prints/library/stacks/members/patrons/description.md");
    let uri = "dbprint://library/stacks.members.patrons/description";
    let text = std::fs::read_to_string(&description).unwrap();
    std::fs::remove_file(&description).unwrap();
    let listed = |server: &mut Server| {
        list_all(server)
            .0
            .iter()
            .any(|e| e["uri"].as_str() == Some(uri))
    };
    // The watcher hears of a change within moments: wait for the listing to agree.
    let settle = |server: &mut Server, want: bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while listed(server) != want {
            assert!(
                std::time::Instant::now() < deadline,
                "listed should be {want}"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    let mut server = Server::start(dir.path(), &[]);
    assert!(!listed(&mut server));
    std::fs::write(&description, &text).unwrap();
    settle(&mut server, true);
    std::fs::write(&description, format!("{text}\nEdited.\n")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(listed(&mut server));
    std::fs::remove_file(&description).unwrap();
    settle(&mut server, false);
}

#[test]
fn templates_list_every_pattern_in_page_form() {
    let mut server = Server::start(&library_fixture(), &[]);
    let r = server.request("resources/templates/list", json!({}));
    let templates = r["result"]["resourceTemplates"].as_array().unwrap();
    // The reference's eleven, then printdex's own ERD template.
    assert_eq!(templates.len(), 12);
    assert_eq!(
        templates[0],
        json!({"uriTemplate": "dbprint:///reference/{document}{?page,version}", "name": "reference document", "mimeType": "text/markdown"})
    );
    assert_eq!(
        templates[10],
        json!({"uriTemplate": "dbprint://{connection}/{table}/relationships_annotations{?page,version}", "name": "table relationships_annotations", "mimeType": "application/yaml"})
    );
    assert_eq!(
        templates[11],
        json!({"uriTemplate": "printdex://{connection}/erd/{table}{?depth}", "name": "table erd", "mimeType": "text/vnd.mermaid"})
    );
}

#[test]
fn every_kind_reads_as_the_file_on_disk() {
    let mut server = Server::start(&library_fixture(), &[]);
    let cases = [
        (
            "dbprint://library/manifest",
            "manifest.yaml",
            "application/yaml",
        ),
        ("dbprint://library/diff", "diff.yaml", "application/yaml"),
        ("dbprint://library/reading", "reading.md", "text/markdown"),
        (
            "dbprint://library/manifest_annotations",
            "manifest.annotations.yaml",
            "application/yaml",
        ),
        (
            "dbprint://library/stacks.catalog.books/ddl",
            "stacks/catalog/books/ddl.sql",
            "application/sql",
        ),
        (
            "dbprint://library/stacks.catalog.books/statistics",
            "stacks/catalog/books/statistics.yaml",
            "application/yaml",
        ),
        (
            "dbprint://library/stacks.catalog.books/relationships",
            "stacks/catalog/books/relationships.yaml",
            "application/yaml",
        ),
        (
            "dbprint://library/stacks.lending.loans/description",
            "stacks/lending/loans/description.md",
            "text/markdown",
        ),
        (
            "dbprint://library/stacks.members.patrons/statistics_annotations",
            "stacks/members/patrons/statistics.annotations.yaml",
            "application/yaml",
        ),
        (
            "dbprint://library/stacks.lending.holds/relationships_annotations",
            "stacks/lending/holds/relationships.annotations.yaml",
            "application/yaml",
        ),
        // The slash-delimited FQN names the same table.
        (
            "dbprint://library/stacks/catalog/books/statistics",
            "stacks/catalog/books/statistics.yaml",
            "application/yaml",
        ),
    ];
    for (uri, file, mime) in cases {
        let (pages, version, count) = read_all(&mut server, uri);
        assert_eq!(pages.concat(), on_disk(&library_file(file)), "{uri}");
        // Read again, each page is read alone from the file its version names.
        assert_eq!(read_all(&mut server, uri), (pages.clone(), version, count));
        for p in &pages {
            assert!(
                escaped_width(p) <= PAGE,
                "{uri}: a page is {} wide",
                escaped_width(p)
            );
        }
        if count > 1 {
            // Each page but the last ends a line, unless a line was cut.
            assert!(
                pages[..count - 1].iter().all(|p| p.ends_with('\n')),
                "{uri}"
            );
        }
        let first = read(&mut server, uri);
        let c = content(&first);
        assert_eq!(c["mimeType"], mime);
        assert_eq!(c["uri"], uri);
    }
    // The books statistics span pages; the version is the same on every page.
    let (_, _, pages) = read_all(
        &mut server,
        "dbprint://library/stacks.catalog.books/statistics",
    );
    assert!(pages > 1);
}

#[test]
fn a_rejected_edge_is_withheld_from_both_sides_and_an_added_one_is_not_listed() {
    let mut server = Server::start(&library_fixture(), &[]);
    // activity_log rejected its inferred patron_id edge.
    let own = text(&read(
        &mut server,
        "dbprint://library/stacks.lending.activity_log/relationships",
    ));
    assert!(!own.contains("stacks.members.patrons"), "{own}");
    assert!(own.starts_with("format_version: 1\ntable: stacks.lending.activity_log\n"));
    assert!(own.contains("refers_to: []\n"), "{own}");
    // The referenced side loses the row too, decided by the referencer's file.
    let target = text(&read(
        &mut server,
        "dbprint://library/stacks.members.patrons/relationships",
    ));
    let raw = on_disk(&library_file("stacks/members/patrons/relationships.yaml"));
    assert!(raw.contains("referencer_table: stacks.lending.activity_log"));
    assert!(
        !target.contains("referencer_table: stacks.lending.activity_log"),
        "{target}"
    );
    assert!(target.contains("referencer_table: stacks.lending.loans"));
    // The resource withholds; it never adds the edges people added (holds -> books.isbn).
    let holds = text(&read(
        &mut server,
        "dbprint://library/stacks.lending.holds/relationships",
    ));
    assert_eq!(
        holds,
        on_disk(&library_file("stacks/lending/holds/relationships.yaml"))
    );
    assert!(!holds.contains("requested_isbn"));
}

#[test]
fn a_verdict_edited_between_pages_invalidates_the_later_read() {
    let project = library();
    let root = project.path().join("prints/library");
    let mut server = Server::start(project.path(), &[]);
    let uri = "dbprint://library/stacks.lending.activity_log/relationships";
    let before = content(&read(&mut server, uri))["_meta"]["version"]
        .as_str()
        .unwrap()
        .to_string();
    // Withdrawing the rejection serves the file as it is, under another version.
    let annotations = root.join("stacks/lending/activity_log/relationships.annotations.yaml");
    let edited = on_disk(&annotations).replace("  verdict: rejected\n", "");
    std::fs::write(&annotations, edited).unwrap();
    let stale = read(&mut server, &format!("{uri}?page=1&version={before}"));
    assert_eq!(error(&stale).0, -32602);
    let now = read(&mut server, uri);
    assert_eq!(
        text(&now),
        on_disk(&root.join("stacks/lending/activity_log/relationships.yaml"))
    );
    assert_ne!(content(&now)["_meta"]["version"], before.as_str());
}

#[test]
fn page_errors() {
    let mut server = Server::start(&library_fixture(), &[]);
    let uri = "dbprint://library/stacks.catalog.books/statistics";
    let first = read(&mut server, uri);
    let meta = content(&first)["_meta"].clone();
    let pages = meta["pages"].as_u64().unwrap();
    let version = meta["version"].as_str().unwrap();
    for page in ["0", "x", "", "-1", &(pages + 1).to_string()] {
        let asked = format!("{uri}?page={page}&version={version}");
        assert_eq!(
            error(&read(&mut server, &asked)),
            (
                -32602,
                format!("'{asked}' names no page of this resource: pages run 1 to {pages}.")
            )
        );
    }
    let asked = format!("{uri}?page=2");
    assert_eq!(
        error(&read(&mut server, &asked)),
        (-32602, format!("'{asked}' asks for a page past the first without `version`. Pass the `version` the first page's `_meta` reported, as `?page=<n>&version=<v>`."))
    );
    let asked = format!("{uri}?page=2&version=0000");
    assert_eq!(
        error(&read(&mut server, &asked)),
        (-32602, format!("'{asked}': the file changed on disk since that version was read. Read page 1 again for its current version."))
    );
    // A version is checked on page 1 too; `01` is page 1.
    let asked = format!("{uri}?page=1&version=0000");
    assert_eq!(error(&read(&mut server, &asked)).0, -32602);
    let r = read(&mut server, &format!("{uri}?page=01&version={version}"));
    assert_eq!(content(&r)["_meta"]["page"], 1);
    // A percent-encoded query decodes as parse_qs does.
    let r = read(&mut server, &format!("{uri}?pa%67e=%32&version={version}"));
    assert_eq!(content(&r)["_meta"]["page"], 2);
}

#[test]
fn a_file_rewritten_between_pages_refuses_the_old_version() {
    let project = library();
    let file = project
        .path()
        .join("prints/library/stacks/catalog/books/statistics.yaml");
    let mut server = Server::start(project.path(), &[]);
    let uri = "dbprint://library/stacks.catalog.books/statistics";
    let first = read(&mut server, uri);
    let version = content(&first)["_meta"]["version"]
        .as_str()
        .unwrap()
        .to_string();
    let mut changed = on_disk(&file);
    changed.push_str("# appended\n");
    std::fs::write(&file, &changed).unwrap();
    let asked = format!("{uri}?page=2&version={version}");
    assert_eq!(
        error(&read(&mut server, &asked)),
        (-32602, format!("'{asked}': the file changed on disk since that version was read. Read page 1 again for its current version."))
    );
    let (pages, new_version, _) = read_all(&mut server, uri);
    assert_ne!(new_version, version);
    assert_eq!(pages.concat(), changed);
}

#[test]
fn a_yaml_file_that_stops_parsing_is_never_served_from_its_old_parse() {
    let project = library();
    let root = project.path().join("prints/library");
    let file = root.join("stacks/catalog/authors/statistics.yaml");
    let mut server = Server::start(project.path(), &[]);
    let uri = "dbprint://library/stacks.catalog.authors/statistics";
    let good = on_disk(&file);
    assert_eq!(read_all(&mut server, uri).0.concat(), good);
    std::fs::write(&file, "columns: [unclosed\n").unwrap();
    let (code, message) = error(&read(&mut server, uri));
    assert_eq!(code, -32603);
    assert!(
        message.starts_with(&format!("{}: YAML parse error: ", file.display())),
        "{message}"
    );
    std::fs::write(&file, &good).unwrap();
    assert_eq!(read_all(&mut server, uri).0.concat(), good);
}

#[test]
fn malformed_uris_and_unknown_names() {
    let mut server = Server::start(&library_fixture(), &[]);
    for uri in [
        "foo",
        "http://x/y",
        "dbprint://",
        "dbprint:///reference/",
        "dbprint:///reference/guide",
        "dbprint://library/stacks.catalog.books/nonsense",
        "dbprint://library/manifest/",
        "dbprint://library/manifest?page=1&page=2",
        "dbprint://library/manifest?foo=1",
        "dbprint://library/manifest?page",
    ] {
        assert_eq!(
            error(&read(&mut server, uri)),
            (
                -32602,
                format!("URI '{uri}' does not match the dbprint:// scheme.")
            ),
            "{uri}"
        );
    }
    // The URI named is the one without its query once the query itself is sound.
    assert_eq!(
        error(&read(&mut server, "dbprint://library/nope?page=1")),
        (
            -32602,
            "URI 'dbprint://library/nope' does not match the dbprint:// scheme.".into()
        )
    );
    assert_eq!(
        error(&read(&mut server, "dbprint://nosuch/manifest")),
        (
            -32602,
            "connection 'nosuch' not in .dbprint.yaml. Configured: ['library']".into()
        )
    );
    assert_eq!(
        error(&read(&mut server, "dbprint://library/no.such.table/statistics")),
        (-32602, "table 'no.such.table' not found in connection 'library'. Call list_tables with connection 'library' for valid names.".into())
    );
    // Reading pages of a resource whose read fails reports the read's error first.
    assert_eq!(
        error(&read(&mut server, "dbprint://library/no.such.table/ddl?page=9")).1,
        "table 'no.such.table' not found in connection 'library'. Call list_tables with connection 'library' for valid names."
    );
    // A list cursor no reply issued.
    let r = server.request("resources/list", json!({"cursor": "bm90LWEtY3Vyc29y"}));
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(
        r["error"]["message"],
        "cursor 'bm90LWEtY3Vyc29y' is not one this server issued. Pass back a reply's `next_cursor` unchanged, or call again without `cursor` for the first page."
    );
}

// --- Synthetic prints -------------------------------------------------------------------

/// A one-connection project `demo` written into a temp dir.
struct Demo {
    dir: tempfile::TempDir,
}

impl Demo {
    fn new(manifest: &str) -> Demo {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".dbprint.yaml"),
            "connections:\n  demo:\n    adapter: duckdb\n",
        )
        .unwrap();
        let demo = Demo { dir };
        demo.write("manifest.yaml", manifest);
        demo
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("prints/demo")
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn start(&self) -> Server {
        Server::start(self.dir.path(), &[])
    }
}

fn table(fqn: &str, kinds: &[(&str, &str)]) -> String {
    let mut out = format!(
        "  {fqn}:\n    type: table\n    path: {}\n    artifacts:\n",
        fqn.replace('.', "/")
    );
    for (kind, file) in kinds {
        out.push_str(&format!("      {kind}: {file}\n"));
    }
    out
}

#[test]
fn pages_measure_escaped_width_and_cut_long_lines() {
    // Lines full of characters JSON escapes: `"` and `\` take 2, a control 6, while
    // U+2028 and astral characters take 1 (and U+2028 ends a line).
    let mut text = String::new();
    for i in 0..400 {
        text.push_str(&format!(
            "{i:04} \"quoted\" back\\slash tab\there \u{1}\u{1f} 😀 é\u{2028}"
        ));
        text.push_str("plain tail of the line\n");
    }
    // One line longer than a page.
    text.push_str(&"x\"".repeat(15_000));
    text.push('\n');
    text.push_str("last\r\nline with CRLF\r\n");
    let demo = Demo::new(&format!(
        "format_version: 1\ntables:\n{}",
        table(
            "db.s.t",
            &[("description", "description.md"), ("ddl", "ddl.sql")]
        )
    ));
    demo.write("db/s/t/description.md", &text);
    demo.write("db/s/t/ddl.sql", "");
    let mut server = demo.start();
    let (pages, _, count) = read_all(&mut server, "dbprint://demo/db.s.t/description");
    let served = text.replace("\r\n", "\n");
    assert_eq!(pages.concat(), served);
    assert!(count >= 4, "{count} pages");
    for (i, p) in pages.iter().enumerate() {
        let w = escaped_width(p);
        assert!(w <= PAGE, "page {} is {w} wide", i + 1);
    }
    assert_eq!(pages, expected_pages(&served));
    // The 30,000-wide line is cut at characters into full pages.
    assert!(pages
        .iter()
        .any(|p| escaped_width(p) == PAGE && !p.contains('\n')));
    // An empty file is one empty page.
    let empty = read(&mut server, "dbprint://demo/db.s.t/ddl");
    assert_eq!(text_of_meta(&empty), ("".to_string(), 1));
}

/// The reference's `line_pages` transcribed directly: `str.splitlines(keepends=True)`
/// pieces added greedily, a piece wider than a page cut at characters.
fn expected_pages(text: &str) -> Vec<String> {
    let breaks = [
        '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}',
        '\u{2029}',
    ];
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if breaks.contains(&c) {
            lines.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    let mut pages = Vec::new();
    let mut page = String::new();
    for mut line in lines {
        while escaped_width(&line) > PAGE {
            if !page.is_empty() {
                pages.push(std::mem::take(&mut page));
            }
            let mut total = 0;
            let mut cut = 0;
            for (i, c) in line.char_indices() {
                total += escaped_width(&c.to_string());
                if total > PAGE {
                    cut = if i == 0 { c.len_utf8() } else { i };
                    break;
                }
            }
            pages.push(line[..cut].to_string());
            line = line[cut..].to_string();
        }
        if !page.is_empty() && escaped_width(&page) + escaped_width(&line) > PAGE {
            pages.push(std::mem::take(&mut page));
        }
        page.push_str(&line);
    }
    if !page.is_empty() || pages.is_empty() {
        pages.push(page);
    }
    pages
}

fn text_of_meta(r: &Value) -> (String, u64) {
    (text(r), content(r)["_meta"]["pages"].as_u64().unwrap())
}

#[test]
fn optional_kinds_never_declared_differ_from_declared_and_missing() {
    let demo = Demo::new(&format!(
        "format_version: 1\nfailed_tables: [db.s.broken]\ntables:\n{}{}",
        table(
            "db.s.t",
            &[
                ("ddl", "ddl.sql"),
                ("statistics", "statistics.yaml"),
                ("description", "description.md"),
            ]
        ),
        table("db.s.v", &[("ddl", "ddl.sql")])
    ));
    demo.write("db/s/t/ddl.sql", "CREATE TABLE t (a int);\n");
    demo.write("db/s/v/ddl.sql", "CREATE VIEW v AS SELECT 1;\n");
    let mut server = demo.start();
    let root = demo.root();
    let cases = [
        (
            "dbprint://demo/db.s.t/statistics_annotations",
            -32602,
            "statistics.annotations.yaml is optional and not authored for table 'db.s.t'.".to_string(),
        ),
        (
            "dbprint://demo/db.s.t/description",
            -32603,
            format!(
                "manifest references description.md but file is absent at {}. Re-run dbprint generate.",
                root.join("db/s/t/description.md").display()
            ),
        ),
        (
            "dbprint://demo/db.s.t/statistics",
            -32603,
            format!(
                "manifest references statistics.yaml but file is absent at {}. Re-run dbprint generate.",
                root.join("db/s/t/statistics.yaml").display()
            ),
        ),
        (
            "dbprint://demo/db.s.v/relationships",
            -32602,
            "relationships is not declared for table 'db.s.v' - check the object's type before requesting it; the manifest does not declare every kind for every object.".to_string(),
        ),
        (
            "dbprint://demo/db.s.broken/ddl",
            -32602,
            "the last generate run could not profile 'db.s.broken'; run dbprint generate to see the cause".to_string(),
        ),
        (
            "dbprint://demo/manifest_annotations",
            -32602,
            "manifest.annotations.yaml is optional and not authored for connection 'demo'.".to_string(),
        ),
        (
            "dbprint://demo/diff",
            -32603,
            format!(
                "no diff available at {}. Run `dbprint diff` or `dbprint generate` first.",
                root.join("diff.yaml").display()
            ),
        ),
        (
            "dbprint://demo/reading",
            -32603,
            format!(
                "no reading guide available at {}. Run `dbprint generate` first.",
                root.join("reading.md").display()
            ),
        ),
    ];
    for (uri, code, message) in cases {
        assert_eq!(error(&read(&mut server, uri)), (code, message), "{uri}");
    }
    // Declared producer kinds are listed even when missing; people's files only when present.
    let (entries, _) = list_all(&mut server);
    let uris: Vec<&str> = entries.iter().map(|e| e["uri"].as_str().unwrap()).collect();
    assert!(uris.contains(&"dbprint://demo/db.s.t/statistics"));
    assert!(!uris.contains(&"dbprint://demo/db.s.t/description"));
    assert!(!uris.contains(&"dbprint://demo/manifest_annotations"));
}

#[test]
fn a_connection_whose_manifest_does_not_parse_keeps_its_manifest_resource() {
    let demo = Demo::new("tables: [unclosed\n");
    demo.write("db/s/t/ddl.sql", "x\n");
    let mut server = demo.start();
    let (entries, _) = list_all(&mut server);
    let uris: Vec<&str> = entries.iter().map(|e| e["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        [
            "dbprint:///reference/spec",
            "dbprint:///reference/assertions",
            "dbprint://demo/manifest",
            "dbprint://demo/diff",
            "dbprint://demo/reading",
        ]
    );
    let manifest = demo.root().join("manifest.yaml");
    let (code, message) = error(&read(&mut server, "dbprint://demo/manifest"));
    assert_eq!(code, -32603);
    assert!(
        message.starts_with(&format!("{}: YAML parse error: ", manifest.display())),
        "{message}"
    );
    let (code, message) = error(&read(&mut server, "dbprint://demo/db.s.t/ddl"));
    assert_eq!(code, -32603);
    assert!(message.contains("YAML parse error"));
    // Fixed on disk: the next call sees it.
    demo.write(
        "manifest.yaml",
        &format!(
            "format_version: 1\ntables:\n{}",
            table("db.s.t", &[("ddl", "ddl.sql")])
        ),
    );
    assert_eq!(text(&read(&mut server, "dbprint://demo/db.s.t/ddl")), "x\n");
}

#[test]
fn the_list_pages_past_its_bound_and_refuses_a_cursor_once_a_manifest_changed() {
    let mut manifest = String::from("format_version: 1\ntables:\n");
    for i in 0..120 {
        manifest.push_str(&table(
            &format!("db.s.t{i:03}"),
            &[("ddl", "ddl.sql"), ("statistics", "statistics.yaml")],
        ));
    }
    let demo = Demo::new(&manifest);
    let mut server = demo.start();
    let (entries, pages) = list_all(&mut server);
    assert_eq!(entries.len(), 2 + 3 + 240);
    assert!(pages >= 2, "{pages} pages");
    // Each page's own measure (json.dumps indent 2) stays within the bound.
    let first = server.request("resources/list", json!({}));
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    demo.write("manifest.yaml", &format!("{manifest}# touched\n"));
    let r = server.request("resources/list", json!({ "cursor": cursor }));
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(
        r["error"]["message"],
        "the print changed on disk since this cursor was issued, so resources/list cannot resume where it left off. Call again without `cursor` to start over."
    );
}

#[test]
fn the_diff_drops_events_about_a_rejected_edge_and_recounts() {
    let kinds = [
        ("ddl", "ddl.sql"),
        ("relationships", "relationships.yaml"),
        (
            "relationships_annotations",
            "relationships.annotations.yaml",
        ),
    ];
    let demo = Demo::new(&format!(
        "format_version: 1\ntables:\n{}{}",
        table("db.s.events", &kinds),
        table("db.s.customers", &kinds[..2])
    ));
    demo.write(
        "db/s/events/relationships.yaml",
        "refers_to:\n- column: [customer_id]\n  target_table: db.s.customers\n  target_column: [id]\n  detection: inferred\n",
    );
    demo.write(
        "db/s/events/relationships.annotations.yaml",
        "format_version: 1\nrefers_to:\n- column: [customer_id]\n  target_table: db.s.customers\n  target_column: [id]\n  verdict: rejected\n",
    );
    let diff = "summary:\n  tables_added: 0\n  relationships_changed: 2\nchanges:\n\
        - kind: relationship_added\n  source_table: db.s.events\n  source_column: [customer_id]\n  target_table: db.s.customers\n  target_column: [id]\n\
        - kind: relationship_added\n  source_table: db.s.customers\n  source_column: [x]\n  target_table: db.s.events\n  target_column: [y]\n";
    demo.write("diff.yaml", diff);
    let mut server = demo.start();
    let served = text(&read(&mut server, "dbprint://demo/diff"));
    assert_eq!(
        served,
        "summary:\n  tables_added: 0\n  relationships_changed: 1\nchanges:\n\
         - kind: relationship_added\n  source_table: db.s.customers\n  source_column:\n  - x\n  target_table: db.s.events\n  target_column:\n  - y\n"
    );
    // Withdrawing the verdict serves the file byte for byte.
    demo.write(
        "db/s/events/relationships.annotations.yaml",
        "format_version: 1\nrefers_to: []\n",
    );
    assert_eq!(text(&read(&mut server, "dbprint://demo/diff")), diff);
}

#[test]
fn reference_documents_are_read_whole_from_the_installed_package() {
    let docs = fixtures().join("reference-docs");
    let package = docs.join("dbprint");
    let mut server = Server::start(
        &docs.join("project"),
        &["--reference-dir", package.to_str().unwrap()],
    );
    for (uri, file) in [
        ("dbprint:///reference/spec", "spec/v1/SPEC.md"),
        (
            "dbprint:///reference/assertions",
            "assertions/ASSERTIONS.md",
        ),
    ] {
        let (pages, _, _) = read_all(&mut server, uri);
        assert_eq!(pages.concat(), on_disk(&package.join(file)), "{uri}");
        assert_eq!(
            content(&read(&mut server, uri))["mimeType"],
            "text/markdown"
        );
    }
    let (_, _, pages) = read_all(&mut server, "dbprint:///reference/spec");
    assert!(pages > 1);
    // The guide is a get_reference document, not a resource.
    assert_eq!(
        error(&read(&mut server, "dbprint:///reference/guide")).0,
        -32602
    );
}

#[test]
fn a_missing_reference_document_is_an_install_defect() {
    // Nothing of this machine's environment may supply a dbprint package.
    let empty = tempfile::tempdir().unwrap();
    let docs = fixtures().join("reference-docs");
    let mut server = Server::start_with(
        docs.join("project").as_os_str(),
        &["--reference-dir", empty.path().to_str().unwrap()],
        None,
        |c| {
            for var in [
                "PRINTDEX_REFERENCE_DIR",
                "PIPX_HOME",
                "UV_TOOL_DIR",
                "XDG_DATA_HOME",
                "APPDATA",
                "USERPROFILE",
                "PYTHONPATH",
            ] {
                c.env_remove(var);
            }
            c.env("PATH", empty.path()).env("HOME", empty.path());
        },
    );
    assert_eq!(
        error(&read(&mut server, "dbprint:///reference/assertions")),
        (-32603, "no assertions reference document available - neither the installed package nor the source tree carries it. Point printdex at an installed dbprint package directory with --reference-dir or the PRINTDEX_REFERENCE_DIR environment variable.".into())
    );
    // Still listed: the list names what the server serves, not what this install carries.
    let (entries, _) = list_all(&mut server);
    assert_eq!(entries[1]["uri"], "dbprint:///reference/assertions");
}
