//! `printdex pz serve` and `printdex pz docs` end to end over stdio: pz's identity and
//! envelope, requests before initialize, SIGTERM, the three docs tools and their errors, syncing from HTTP, `file://` and a
//! directory, offline answers, the size cap, unreachable and hanging sources, background
//! refresh, and the PZ0609 backstop.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::pz_util::{
    closed_port_url, compare_with_oracle, docs_cmd, docs_fixture, real_docs, Loopback, PzClient,
    Reply,
};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// Sync the fixture into `docs` from a directory.
fn synced(cache: &std::path::Path, docs: &std::path::Path) {
    let (ok, out, err) = docs_cmd(
        cache,
        &[
            "sync",
            "--from",
            docs_fixture().to_str().unwrap(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok, "sync failed: {out}{err}");
}

fn serve(
    cache: &std::path::Path,
    docs: &std::path::Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> PzClient {
    let mut args = vec!["--docs-dir", docs.to_str().unwrap()];
    args.extend_from_slice(extra);
    PzClient::start(cache, &args, env)
}

fn error_code(env: &Value) -> &str {
    env["errors"][0]["code"].as_str().unwrap_or("")
}

#[test]
fn handshake_and_tool_list_carry_pzs_identity() {
    let cache = tmp();
    let mut c = PzClient::start(cache.path(), &["--project", "."], &[]);
    assert_eq!(c.init["result"]["serverInfo"]["name"], json!("pz"));
    assert_eq!(c.init["result"]["protocolVersion"], json!("2025-06-18"));
    let tools = c.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    // The project's read side first (tests/it/pz_project.rs), then the docs tools.
    assert_eq!(
        names[4..],
        ["pz_docs_list", "pz_docs_search", "pz_docs_get"]
    );
    let search = &tools[5]["inputSchema"];
    assert_eq!(search["required"], json!(["query"]));
    assert_eq!(search["properties"]["limit"]["type"], json!("integer"));
    assert_eq!(search["properties"]["limit"]["default"], json!(10));
    assert_eq!(tools[6]["inputSchema"]["required"], json!(["slug"]));
    assert_eq!(tools[4]["inputSchema"]["properties"], json!({}));
    assert!(c.close().success());
}

#[test]
fn requests_before_initialize_are_answered_and_early_notifications_ignored() {
    // As pz's SDK serves stdio: no handshake gate ends the session.
    let cache = tmp();
    let docs = cache.path().join("docs");
    synced(cache.path(), &docs);
    let mut c = PzClient::spawn(cache.path(), &["--docs-dir", docs.to_str().unwrap()], &[]);
    c.notify("notifications/initialized", json!({}));
    let tools = c.request("tools/list", json!({}));
    assert_eq!(
        tools["result"]["tools"].as_array().map(Vec::len),
        Some(7),
        "{tools}"
    );
    let env = c.envelope("pz_docs_get", json!({"slug": "install"}));
    assert_eq!(env["doc"]["slug"], json!("install"), "{env}");
    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], json!("pz"), "{init}");
    assert!(c.close().success());
}

#[test]
fn sigterm_ends_the_session_with_exit_0() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    synced(cache.path(), &docs);
    let mut c = serve(cache.path(), &docs, &[], &[]);
    assert_eq!(c.envelope("pz_docs_list", json!({}))["ok"], json!(true));
    c.signal("-TERM");
    assert_eq!(c.wait().code(), Some(0));
}

#[test]
fn synced_from_http_then_answers_offline_exactly_as_the_oracle() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    let mut site = Loopback::files(docs_fixture());
    let (ok, out, err) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            &site.url(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok, "{out}{err}");
    assert!(
        out.starts_with("synced 38 pages from http://127.0.0.1:"),
        "{out}"
    );
    assert!(out.contains("/llms-full.txt  "), "{out}");
    assert!(out.contains("blake3 "), "{out}");
    let requested = site.requests.lock().unwrap().clone();
    assert_eq!(requested, ["/llms.txt", "/llms-full.txt"]);
    site.stop();

    // The site is gone; the index answers.
    let mut c = serve(cache.path(), &docs, &[], &[]);
    let (n, bad) = compare_with_oracle(&mut c, &docs_fixture());
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );

    let list = c.envelope("pz_docs_list", json!({}));
    let pages = list["docs"].as_array().unwrap();
    assert_eq!(pages.len(), 38);
    assert_eq!(
        pages[0],
        json!({"slug": "docs", "title": "Documentation map", "description": "Where each kind of page lives: concepts, how-to guides, connectors and reference.", "group": "Start here", "url": "https://pipelinez.dev/docs/"})
    );
    let gcs = pages.iter().find(|p| p["slug"] == "how-to/gcs").unwrap();
    assert!(gcs.get("description").is_none(), "{gcs}");
    assert!(pages
        .iter()
        .all(|p| !p["slug"].as_str().unwrap().contains("llms")));
    assert!(pages.iter().any(|p| p["slug"] == "docs/how-to/mirror-page"));
    assert_eq!(
        pages
            .iter()
            .filter(|p| p["slug"] == "articles/overlap")
            .count(),
        2
    );
}

#[test]
fn docs_payload_sits_beside_ok_with_pzs_bytes() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    synced(cache.path(), &docs);
    let mut c = serve(cache.path(), &docs, &[], &[]);
    // Pinned: the payload is top level (as pz's DocsTools writes it), never under "result".
    let (text, is_error) = c.call("pz_docs_get", json!({"slug": "how-to/gcs"}));
    assert!(!is_error);
    assert_eq!(
        text,
        r##"{"ok":true,"doc":{"slug":"how-to/gcs","title":"Google Cloud Storage","group":"How-to guides","url":"https://pipelinez.dev/how-to/gcs/","markdown":"# Google Cloud Storage\n\nUse the \u0060gcs\u0060 connector with HMAC keys or application default credentials. Keep keys out of\nYAML: write \u0060hmac_secret: ${GCS_HMAC_SECRET}\u0060 so the value comes from the environment."}}"##
    );
    let (text, _) = c.call("pz_docs_search", json!({"query": "tilde_option"}));
    assert_eq!(
        text,
        r#"{"ok":true,"query":"tilde_option","hits":[{"slug":"how-to/tilde","title":"Tilde fences","url":"https://pipelinez.dev/how-to/tilde/","score":1,"excerpts":["tilde_option: true"]}]}"#
    );
    let (text, _) = c.call("pz_docs_list", json!({}));
    assert!(
        text.starts_with(r#"{"ok":true,"docs":[{"slug":"docs","#),
        "{text}"
    );
    let (text, _) = c.call("pz_docs_search", json!({"query": " "}));
    assert_eq!(
        text,
        r#"{"ok":false,"errors":[{"code":"PZ0608","message":"search query was empty","next_step":"Pass a query \u2014 a term, an error code like PZ0214, or an option name like force_universal."}]}"#
    );
}

#[test]
fn get_trims_slugs_folds_case_and_refuses_unknown_ones() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    synced(cache.path(), &docs);
    let mut c = serve(cache.path(), &docs, &[], &[]);
    for slug in [
        "concepts/pipelines",
        "/concepts/pipelines/",
        "  CONCEPTS/Pipelines/ \t",
    ] {
        let env = c.envelope("pz_docs_get", json!({"slug": slug}));
        assert_eq!(env["doc"]["slug"], json!("concepts/pipelines"), "{slug}");
        let md = env["doc"]["markdown"].as_str().unwrap();
        assert!(
            md.starts_with("# Pipelines\n\nA pipeline is a SQL file"),
            "{md}"
        );
    }
    // Joined case-insensitively; an index page without a section has empty markdown.
    let env = c.envelope("pz_docs_get", json!({"slug": "reference/case-page"}));
    assert_eq!(env["doc"]["slug"], json!("Reference/Case-Page"));
    assert!(env["doc"]["markdown"]
        .as_str()
        .unwrap()
        .contains("Case folding joins"));
    let env = c.envelope("pz_docs_get", json!({"slug": "reference/no-body"}));
    assert_eq!(env["doc"]["markdown"], json!(""));
    // A section no index line names is not a page.
    let env = c.envelope("pz_docs_get", json!({"slug": "/orphan/section "}));
    assert_eq!(
        env,
        json!({"ok": false, "errors": [{"code": "PZ0608", "message": "no documentation page with slug '/orphan/section '", "next_step": "Call pz_docs_list for the available slugs, or pz_docs_search to find one by keyword."}]})
    );
    let env = c.envelope("pz_docs_get", json!({"slug": null}));
    assert_eq!(error_code(&env), "PZ0608");
}

#[test]
fn search_clamps_limits_and_echoes_the_raw_query() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    synced(cache.path(), &docs);
    let mut c = serve(cache.path(), &docs, &[], &[]);
    let count = |c: &mut PzClient, args: Value| {
        c.envelope("pz_docs_search", args)["hits"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count(&mut c, json!({"query": "pz"})), 10);
    assert_eq!(count(&mut c, json!({"query": "pz", "limit": null})), 10);
    assert_eq!(count(&mut c, json!({"query": "pz", "limit": 0})), 1);
    assert_eq!(count(&mut c, json!({"query": "pz", "limit": -7})), 1);
    assert_eq!(count(&mut c, json!({"query": "pz", "limit": 3})), 3);
    let all = count(&mut c, json!({"query": "the", "limit": 1000}));
    assert!(all <= 50 && all > 30, "{all}");
    assert_eq!(count(&mut c, json!({"query": "pz", "limit": 2.0})), 2);
    let env = c.envelope("pz_docs_search", json!({"query": "  PZ0214  ", "limit": 1}));
    assert_eq!(env["query"], json!("  PZ0214  "));
    assert_eq!(env["hits"][0]["slug"], json!("reference/error-codes"));
    let excerpts = env["hits"][0]["excerpts"].as_array().unwrap();
    assert_eq!(excerpts.len(), 3);
    assert!(excerpts
        .iter()
        .all(|e| e.as_str().unwrap().encode_utf16().count() <= 200));
    // No term of two or more characters: no hits, not an error.
    let env = c.envelope("pz_docs_search", json!({"query": "a ? !"}));
    assert_eq!(env, json!({"ok": true, "query": "a ? !", "hits": []}));
    let env = c.envelope("pz_docs_search", json!({"query": null}));
    assert_eq!(error_code(&env), "PZ0608");
}

#[test]
fn malformed_arguments_are_invalid_params_in_pzs_words() {
    let cache = tmp();
    let mut c = PzClient::start(
        cache.path(),
        &["--docs-dir", cache.path().join("d").to_str().unwrap()],
        &[("PZ_DOCS_URL", &closed_port_url())],
    );
    let cases = [
        (
            "pz_docs_search",
            json!({}),
            "invalid params for 'pz_docs_search': required argument 'query' is missing",
        ),
        (
            "pz_docs_search",
            json!({"query": 5}),
            "invalid params for 'pz_docs_search': argument 'query' expects string, got number",
        ),
        (
            "pz_docs_search",
            json!({"query": "x", "limit": "5"}),
            "invalid params for 'pz_docs_search': argument 'limit' expects integer, got string",
        ),
        (
            "pz_docs_search",
            json!({"query": "x", "limit": 2.5}),
            "invalid params for 'pz_docs_search': argument 'limit' expects integer, got number",
        ),
        (
            "pz_docs_search",
            json!({"query": "x", "limt": 5}),
            "invalid params for 'pz_docs_search': unknown argument 'limt' (accepted: query, limit)",
        ),
        (
            "pz_docs_get",
            json!({"slug": ["a"]}),
            "invalid params for 'pz_docs_get': argument 'slug' expects string, got array",
        ),
        (
            "pz_docs_get",
            json!({}),
            "invalid params for 'pz_docs_get': required argument 'slug' is missing",
        ),
        (
            "pz_docs_list",
            json!({"all": true}),
            "invalid params for 'pz_docs_list': unknown argument 'all' (accepted: none)",
        ),
    ];
    for (tool, args, message) in cases {
        let r = c.call_raw(tool, args.clone());
        assert_eq!(r["error"]["code"], json!(-32602), "{tool} {args}: {r}");
        assert_eq!(r["error"]["message"], json!(message), "{tool} {args}");
    }
    let r = c.call_raw("pz_run", json!({}));
    assert_eq!(r["error"]["code"], json!(-32602));
    assert_eq!(r["error"]["message"], json!("Unknown tool: 'pz_run'"));
}

#[test]
fn never_synced_and_unreachable_is_pz0607_naming_the_url() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    let url = closed_port_url();
    let mut c = serve(
        cache.path(),
        &docs,
        &[],
        &[("PZ_DOCS_URL", &format!("{url}/"))],
    );
    for (tool, args) in [
        ("pz_docs_list", json!({})),
        ("pz_docs_get", json!({"slug": "x"})),
    ] {
        let env = c.envelope(tool, args);
        assert_eq!(
            env,
            json!({"ok": false, "errors": [{"code": "PZ0607", "message": format!("could not reach the documentation at {url}/llms.txt"), "next_step": "The documentation tools need network access; every other pz tool works offline. Set PZ_DOCS_URL to a reachable mirror of the site if this machine cannot reach the public one."}]}),
            "{tool}"
        );
    }
    // The empty query is refused before any fetch.
    let env = c.envelope("pz_docs_search", json!({"query": ""}));
    assert_eq!(error_code(&env), "PZ0608");
    let env = c.envelope("pz_docs_search", json!({"query": "x"}));
    assert_eq!(error_code(&env), "PZ0607");

    // The sync command says the same and fails.
    let (ok, _, err) = docs_cmd(
        cache.path(),
        &["sync", "--docs-dir", docs.to_str().unwrap()],
        &[("PZ_DOCS_URL", &url)],
    );
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "PZ0607: could not reach the documentation at {url}/llms.txt"
        )),
        "{err}"
    );
    // A 503 and a missing directory are unreachable too.
    let site = Loopback::start(Arc::new(|_: &str| Reply::Status(503)));
    let (ok, _, err) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            &site.url(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(!ok && err.contains("PZ0607"), "{err}");
    let gone = cache.path().join("no-such-dir");
    let (ok, _, err) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            gone.to_str().unwrap(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        !ok && err.contains(&format!("file://{}/llms.txt", gone.display())),
        "{err}"
    );
}

#[test]
fn first_call_syncs_on_demand_into_the_user_cache() {
    let cache = tmp();
    let site = Loopback::files(docs_fixture());
    // No --docs-dir: the index goes to $XDG_CACHE_HOME/printdex/pz-docs.
    let mut c = PzClient::start(cache.path(), &[], &[("PZ_DOCS_URL", &site.url())]);
    let env = c.envelope(
        "pz_docs_search",
        json!({"query": "force_universal", "limit": 1}),
    );
    assert_eq!(env["hits"][0]["slug"], json!("reference/project-yml"));
    let root = cache.path().join("printdex/pz-docs");
    let pointer: Value =
        serde_json::from_slice(&std::fs::read(root.join("current.json")).unwrap()).unwrap();
    assert_eq!(pointer["source"], json!(site.url()));
    let version = pointer["version"].as_str().unwrap();
    let meta: Value =
        serde_json::from_slice(&std::fs::read(root.join(version).join("meta.json")).unwrap())
            .unwrap();
    assert_eq!(meta["pages"], json!(38));
    let want = blake3::hash(&std::fs::read(docs_fixture().join("llms-full.txt")).unwrap())
        .to_hex()
        .to_string();
    assert_eq!(meta["llms_full_txt"]["blake3"], json!(want));
    // Fetched once, not per call.
    c.envelope("pz_docs_list", json!({}));
    assert_eq!(site.requests.lock().unwrap().len(), 2);

    let (ok, out, _) = docs_cmd(cache.path(), &["status"], &[]);
    assert!(ok);
    assert!(out.contains(&format!("source: {}", site.url())), "{out}");
    assert!(out.contains("pages: 38"), "{out}");
}

#[test]
fn sync_from_a_directory_and_a_file_url_share_one_version() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    let dir = docs_fixture();
    let (ok, out, err) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            dir.to_str().unwrap(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok, "{err}");
    assert!(out.starts_with("synced 38 pages from file:///"), "{out}");
    let canonical = dir.canonicalize().unwrap();
    let url = format!("file://{}/", canonical.display());
    let (ok, again, _) = docs_cmd(
        cache.path(),
        &["sync", "--from", &url, "--docs-dir", docs.to_str().unwrap()],
        &[],
    );
    assert!(ok);
    assert!(again.starts_with("unchanged: 38 pages"), "{again}");
    let versions: Vec<_> = std::fs::read_dir(&docs)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("v-"))
        .collect();
    assert_eq!(versions.len(), 1);
    // PZ_DOCS_URL is the default source of a bare sync.
    let (ok, out, _) = docs_cmd(
        cache.path(),
        &["sync", "--docs-dir", docs.to_str().unwrap()],
        &[("PZ_DOCS_URL", &url)],
    );
    assert!(ok && out.starts_with("unchanged:"), "{out}");
    let mut c = serve(
        cache.path(),
        &docs,
        &[],
        &[("PZ_DOCS_URL", &closed_port_url())],
    );
    let env = c.envelope("pz_docs_search", json!({"query": "PZ0214", "limit": 1}));
    assert_eq!(env["hits"][0]["score"], json!(13));
}

#[test]
fn files_over_25_mib_are_pz0610() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    let index = std::fs::read(docs_fixture().join("llms.txt")).unwrap();
    let limit = 25 * 1024 * 1024u64;
    // Declared too long: refused before reading.
    let declared = {
        let index = index.clone();
        Loopback::start(Arc::new(move |p: &str| match p {
            "/llms.txt" => Reply::Body(index.clone()),
            _ => Reply::Declares(limit + 1),
        }))
    };
    let (ok, _, err) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            &declared.url(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(!ok);
    assert!(
        err.contains(&format!("PZ0610: the documentation response from {}/llms-full.txt is over pz's 26214400-byte limit (26214401 bytes and counting)", declared.url())),
        "{err}"
    );
    // No length declared: counted while streaming, on the server's on-demand sync.
    let streamed = Loopback::start(Arc::new(move |_: &str| Reply::Streams(limit + 100_000)));
    let mut c = serve(
        cache.path(),
        &docs,
        &[],
        &[("PZ_DOCS_URL", &streamed.url())],
    );
    let env = c.envelope("pz_docs_list", json!({}));
    assert_eq!(error_code(&env), "PZ0610");
    assert_eq!(
        env["errors"][0]["message"],
        json!(format!("the documentation response from {}/llms.txt is over pz's 26214400-byte limit (26214401 bytes and counting)", streamed.url()))
    );
    // A local mirror's oversized file.
    let dir = cache.path().join("mirror");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("llms.txt"), &index).unwrap();
    std::fs::File::create(dir.join("llms-full.txt"))
        .unwrap()
        .set_len(limit + 5)
        .unwrap();
    let (ok, _, err) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            dir.to_str().unwrap(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        !ok && err.contains("PZ0610") && err.contains("(26214405 bytes and counting)"),
        "{err}"
    );
}

#[test]
fn a_hanging_source_costs_at_most_the_timeout() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    let site = Loopback::start(Arc::new(|_: &str| Reply::Hang));
    // Nothing synced: the call waits the timeout, then PZ0607.
    let mut c = serve(
        cache.path(),
        &docs,
        &["--docs-timeout", "1s"],
        &[("PZ_DOCS_URL", &site.url())],
    );
    let started = Instant::now();
    let env = c.envelope("pz_docs_list", json!({}));
    let took = started.elapsed();
    assert_eq!(error_code(&env), "PZ0607");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "{took:?}"
    );
    drop(c);
    // Synced and stale: answers at once while the refresh hangs in the background.
    synced(cache.path(), &docs);
    let mut c = serve(
        cache.path(),
        &docs,
        &["--docs-timeout", "30s", "--docs-max-age", "0"],
        &[("PZ_DOCS_URL", &site.url())],
    );
    for _ in 0..3 {
        let started = Instant::now();
        let env = c.envelope("pz_docs_search", json!({"query": "watermark", "limit": 1}));
        assert_eq!(env["hits"][0]["slug"], json!("concepts/incremental"));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }
}

#[test]
fn a_stale_corpus_is_refreshed_in_the_background() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    let index = std::fs::read_to_string(docs_fixture().join("llms.txt")).unwrap();
    let full = std::fs::read_to_string(docs_fixture().join("llms-full.txt")).unwrap();
    let current = Arc::new(Mutex::new((index.clone(), full.clone())));
    let served = current.clone();
    let site = Loopback::start(Arc::new(move |p: &str| {
        let (i, f) = served.lock().unwrap().clone();
        match p {
            "/llms.txt" => Reply::Body(i.into_bytes()),
            "/llms-full.txt" => Reply::Body(f.into_bytes()),
            _ => Reply::Status(404),
        }
    }));
    let (ok, _, err) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            &site.url(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok, "{err}");
    // The site publishes a new page.
    *current.lock().unwrap() = (
        index.replace("## Full text", "## New\n\n- [Fresh page](https://pipelinez.dev/fresh/): Just published.\n\n## Full text"),
        format!("{full}\n===== pz-doc: fresh | https://pipelinez.dev/fresh/ =====\n\n# Fresh page\n\nnewly_published_option\n"),
    );
    let mut c = serve(cache.path(), &docs, &["--docs-max-age", "0"], &[]);
    let first = c.envelope("pz_docs_list", json!({}))["docs"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(first, 38, "answers from the index first");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let env = c.envelope("pz_docs_search", json!({"query": "newly_published_option"}));
        if env["hits"].as_array().unwrap().len() == 1 {
            assert_eq!(env["hits"][0]["slug"], json!("fresh"));
            break;
        }
        assert!(Instant::now() < deadline, "refresh never landed");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        c.envelope("pz_docs_list", json!({}))["docs"]
            .as_array()
            .unwrap()
            .len(),
        39
    );
    // A sync by another process is picked up by a server that does not refresh by itself.
    let mut idle = serve(cache.path(), &docs, &["--docs-max-age", "never"], &[]);
    assert_eq!(
        idle.envelope("pz_docs_list", json!({}))["docs"]
            .as_array()
            .unwrap()
            .len(),
        39
    );
    let (ok, _, _) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            docs_fixture().to_str().unwrap(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok);
    assert_eq!(
        idle.envelope("pz_docs_list", json!({}))["docs"]
            .as_array()
            .unwrap()
            .len(),
        38
    );
}

#[test]
fn an_unclassified_failure_is_a_pz0609_envelope() {
    let cache = tmp();
    let site = Loopback::files(docs_fixture());
    // The docs index directory cannot be created: nothing classifies that failure.
    let blocker = cache.path().join("not-a-dir");
    std::fs::write(&blocker, "a file").unwrap();
    let docs = blocker.join("docs");
    let mut c = serve(cache.path(), &docs, &[], &[("PZ_DOCS_URL", &site.url())]);
    let (text, is_error) = c.call("pz_docs_list", json!({}));
    assert!(is_error, "{text}");
    let env: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(env["ok"], json!(false));
    assert_eq!(env["applied"], json!(false));
    assert_eq!(error_code(&env), "PZ0609");
    let message = env["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("'pz_docs_list' failed: IOException: "),
        "{message}"
    );
    assert!(env["errors"][0]["next_step"]
        .as_str()
        .unwrap()
        .contains("report it"));
    // The server carries on.
    let env = c.envelope("pz_docs_search", json!({"query": ""}));
    assert_eq!(error_code(&env), "PZ0608");
}

#[test]
#[ignore = "needs ../shared/pz-docs, the real pz docs corpus (not in the repository)"]
fn the_real_pz_docs_answer_as_expected_jsonl() {
    let real = real_docs();
    let cache = tmp();
    let docs = cache.path().join("docs");
    let (ok, out, err) = docs_cmd(
        cache.path(),
        &[
            "sync",
            "--from",
            real.to_str().unwrap(),
            "--docs-dir",
            docs.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok, "{err}");
    assert!(out.contains(" 83 pages "), "{out}");
    let mut c = serve(
        cache.path(),
        &docs,
        &[],
        &[("PZ_DOCS_URL", &closed_port_url())],
    );
    let (n, bad) = compare_with_oracle(&mut c, &real);
    eprintln!(
        "real pz docs over stdio: {} of {n} queries answer as expected.jsonl",
        n - bad.len()
    );
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn sync_failures_give_the_cause_and_suggest_from_or_pz_docs_url() {
    let cache = tmp();
    let docs = cache.path().join("docs");
    let not_found = Loopback::start(Arc::new(|_: &str| Reply::Status(404)));
    let refused = closed_port_url();
    let gone = cache.path().join("no-such-dir");
    let host = refused.trim_start_matches("http://").to_string();
    for (from, cause) in [
        (
            "http://docs.nonexistent.invalid".to_string(),
            "the name docs.nonexistent.invalid could not be resolved (DNS".to_string(),
        ),
        (
            refused.clone(),
            format!("{host} refused the connection (nothing listens there)"),
        ),
        (
            not_found.url(),
            "the server answered HTTP 404 Not Found".to_string(),
        ),
        (
            gone.to_string_lossy().into_owned(),
            format!("the directory {} does not exist", gone.display()),
        ),
    ] {
        let (ok, _, err) = docs_cmd(
            cache.path(),
            &[
                "sync",
                "--from",
                &from,
                "--timeout",
                "5s",
                "--docs-dir",
                docs.to_str().unwrap(),
            ],
            &[],
        );
        assert!(!ok, "{from}");
        assert!(
            err.contains("error: PZ0607: could not reach the documentation at "),
            "{from}: {err}"
        );
        assert!(
            err.contains(&format!("\n  cause: {cause}")),
            "{from}: {err}"
        );
        assert!(
            err.contains("\n  hint: sync from a mirror with --from URL, or from a directory holding llms.txt and llms-full.txt with --from DIR; or set PZ_DOCS_URL (now unset)\n"),
            "{from}: {err}"
        );
    }
}
