//! plan_joins and the ERD over stdio and the command line: the cases file's trees over the
//! fixture prints (every plan's SQL checked clean by validate_sql), the tool as a client
//! meets it, the ERD resource template, and `printdex erd` in each format (the SVG parsed).

use std::collections::BTreeMap;
use std::process::Command;

use compat::value::Value as Yaml;
use serde_json::{json, Value};

use crate::util::{all_markdown_pages, all_pages, bin, fixtures, Server};

/// One case of `tests/it/plan_joins/cases.yaml`.
struct Case {
    name: String,
    project: String,
    arguments: Value,
    /// The whole error text, or the hops, method and alternatives count.
    error: Option<String>,
    hops: Vec<String>,
    method: String,
    alternatives: usize,
}

fn cases() -> Vec<Case> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/plan_joins/cases.yaml");
    let doc = compat::yaml::load(&std::fs::read_to_string(path).unwrap()).unwrap();
    let to_json =
        |v: &Yaml| -> Value { serde_json::from_str(&compat::py::json_compact(v)).unwrap() };
    doc.as_seq()
        .unwrap()
        .iter()
        .map(|c| {
            let text = |k: &str| c.get(k).and_then(Yaml::as_str).map(str::to_string);
            let mut arguments = json!({"format": "json"});
            for k in ["tables", "columns", "avoid", "max_hops"] {
                if let Some(v) = c.get(k) {
                    arguments[k] = to_json(v);
                }
            }
            Case {
                name: text("name").unwrap(),
                project: text("project").unwrap(),
                arguments,
                error: text("error"),
                hops: c
                    .get("hops")
                    .and_then(Yaml::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|h| h.as_str().map(str::to_string))
                    .collect(),
                method: text("method").unwrap_or_default(),
                alternatives: c
                    .get("alternatives")
                    .and_then(|a| match a {
                        Yaml::Int(n) => Some(*n as usize),
                        _ => None,
                    })
                    .unwrap_or(0),
            }
        })
        .collect()
}

/// A hop as the cases file writes it.
fn written(hop: &Value) -> String {
    let short = |k: &str| {
        hop[k]
            .as_str()
            .unwrap()
            .split_once('.')
            .unwrap()
            .1
            .to_string()
    };
    let left = if hop["join"] == "LEFT JOIN" {
        " (LEFT)"
    } else {
        ""
    };
    format!("{} > {}{left}", short("from"), short("to"))
}

#[test]
fn every_plan_case_gives_its_tree_and_sql_that_validates() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut by_project: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    for c in &cases {
        by_project.entry(&c.project).or_default().push(c);
    }
    let mut failures = Vec::new();
    for (project, cases) in by_project {
        let mut server = Server::start(&fixtures().join(project), &[]);
        for case in cases {
            if let Some(error) = &case.error {
                let (text, is_error) = server.call("plan_joins", case.arguments.clone());
                if !is_error || &text != error {
                    failures.push(format!(
                        "{}:\n  want error {error}\n  got  ({is_error}) {text}",
                        case.name
                    ));
                }
                continue;
            }
            let pages = all_pages(&mut server, "plan_joins", case.arguments.clone());
            let hops: Vec<String> = pages
                .iter()
                .flat_map(|p| p["hops"].as_array().cloned().unwrap_or_default())
                .map(|h| written(&h))
                .collect();
            let first = &pages[0];
            let alternatives = first["alternatives"].as_array().map_or(0, Vec::len);
            if hops != case.hops
                || first["method"] != case.method.as_str()
                || alternatives != case.alternatives
            {
                failures.push(format!(
                    "{}:\n  want {:?} {} {}\n  got  {hops:?} {} {alternatives}",
                    case.name, case.hops, case.method, case.alternatives, first["method"]
                ));
                continue;
            }
            // Every plan's SQL, and every alternative's, is clean against the print.
            let alternatives = first["alternatives"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let sqls = std::iter::once(first["sql"].clone())
                .chain(alternatives.iter().map(|a| a["sql"].clone()));
            for sql in sqls {
                let sql = sql.as_str().unwrap().to_string();
                let (report, _) =
                    server.call("validate_sql", json!({"sql": sql, "format": "json"}));
                let report: Value = serde_json::from_str(&report).unwrap();
                if report["ok"] != json!(true) {
                    failures.push(format!(
                        "{}: its SQL does not validate:\n{sql}\n{report}",
                        case.name
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_tool_is_listed_after_validate_sql_on_one_tools_list_page() {
    let mut s = Server::start(&fixtures().join("joins"), &[]);
    let listed = s.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        &names[6..],
        ["get_reference", "validate_sql", "plan_joins", "find"]
    );
    assert!(listed["result"].get("nextCursor").is_none(), "{listed}");
    let schema = &tools[8]["inputSchema"];
    assert_eq!(schema["required"], json!(["tables"]));
    assert_eq!(schema["properties"]["tables"]["type"], json!("array"));
    assert_eq!(schema["properties"]["tables"]["maxItems"], json!(12));
    assert_eq!(schema["properties"]["max_hops"]["minimum"], json!(1));
    // A cursor is still read as every list's is.
    let bad = s.request("tools/list", json!({"cursor": "garbage!!"}));
    assert_eq!(bad["error"]["code"], json!(-32602));
    assert_eq!(
        bad["error"]["message"],
        json!("cursor 'garbage!!' is not one this server issued. Pass back a reply's `next_cursor` unchanged, or call again without `cursor` for the first page.")
    );
    let instructions = s.init["result"]["instructions"].as_str().unwrap();
    assert_eq!(
        instructions
            .lines()
            .filter(|l| l.starts_with("- plan_joins: "))
            .count(),
        1
    );
    assert!(
        instructions.chars().count() < 2048,
        "{}",
        instructions.chars().count()
    );
}

#[test]
fn bad_arguments_are_refused_before_planning() {
    let mut s = Server::start(&fixtures().join("joins"), &[]);
    let cases = [
        (json!({}), "plan_joins requires 'tables'."),
        (json!({"tables": "sales.orders"}), "tables 'sales.orders' must be of type array."),
        (json!({"tables": []}), "tables [] must hold at least 1 items."),
        (json!({"tables": ["a", 1]}), "tables item 1 must be of type string."),
        (json!({"tables": ["a", ""]}), "tables item '' must be a non-empty string."),
        (json!({"tables": ["a", "b"], "max_hops": 0}), "max_hops 0 must be at least 1."),
        (json!({"tables": ["a", "b"], "format": "xml"}), "format 'xml' must be one of ['md', 'json', 'yaml']."),
        (json!({"tables": ["a", "b"], "via": ["c"]}), "plan_joins takes no argument 'via'. Accepted: ['avoid', 'columns', 'connection', 'cursor', 'format', 'max_hops', 'tables']."),
    ];
    for (arguments, want) in cases {
        let (text, is_error) = s.call("plan_joins", arguments.clone());
        assert!(is_error, "{arguments}: {text}");
        assert_eq!(text, want, "{arguments}");
    }
    let thirteen: Vec<String> = (0..13).map(|i| format!("t{i}")).collect();
    let (text, _) = s.call("plan_joins", json!({"tables": thirteen}));
    assert!(text.ends_with("must hold at most 12 items."), "{text}");
    // The server keeps serving.
    let (text, is_error) = s.call("plan_joins", json!({"tables": ["payments", "customers"]}));
    assert!(!is_error, "{text}");
}

#[test]
fn markdown_says_each_hop_in_words_and_ends_with_the_plans_diagram() {
    let mut s = Server::start(&fixtures().join("joins"), &[]);
    let pages = all_markdown_pages(
        &mut s,
        "plan_joins",
        json!({"tables": ["order_lines", "payments"]}),
    );
    assert_eq!(pages.len(), 1);
    let md = &pages[0];
    assert!(md.starts_with("# plan_joins: 3 tables, 2 joins\n"), "{md}");
    assert!(md.contains("1. `sales.order_lines` -> `sales.orders` on order_id = order_id (many-to-one, declared"), "{md}");
    assert!(md.contains("Each order meets 1.8 payments on average (max 3): rows multiply; 19% of orders have no payment"), "{md}");
    assert!(
        md.contains("LEFT JOIN sales.payments AS p ON p.order_id = o.order_id"),
        "{md}"
    );
    let diagram = md.split("```mermaid\n").nth(1).expect("a mermaid block");
    assert!(diagram.starts_with("erDiagram\n"), "{diagram}");
    assert!(
        diagram.contains("\"sales.order_lines\" }o--|| \"sales.orders\" : \"order_id\""),
        "{diagram}"
    );
    assert!(
        diagram.contains("\"sales.payments\" }o--|| \"sales.orders\" : \"order_id\""),
        "{diagram}"
    );
    assert!(md.trim_end().ends_with("```"), "{md}");
    // A confirmed edge and an added one say so; yaml is the json dict.
    let (yaml, _) = s.call(
        "plan_joins",
        json!({"tables": ["order_lines", "employees"], "format": "yaml"}),
    );
    let parsed = compat::yaml::load(&yaml).unwrap();
    let as_json: Value = serde_json::from_str(&compat::py::json_compact(&parsed)).unwrap();
    let (text, _) = s.call(
        "plan_joins",
        json!({"tables": ["order_lines", "employees"], "format": "json"}),
    );
    assert_eq!(as_json, serde_json::from_str::<Value>(&text).unwrap());
    let hops = as_json["hops"].as_array().unwrap();
    let added = hops
        .iter()
        .find(|h| h["detection"] == "annotated")
        .expect("the added edge");
    assert_eq!(added["from_columns"], json!(["manager_employee"]));
    assert!(added["note"]
        .as_str()
        .unwrap()
        .starts_with("The store's manager"));
    let (text, _) = s.call(
        "plan_joins",
        json!({"tables": ["order_lines", "catalog.products"], "format": "json"}),
    );
    let plan: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(plan["hops"][0]["detection"], json!("inferred"));
    assert_eq!(plan["hops"][0]["confirmed"], json!(true));
    assert!(plan["hops"][0]["containment"].as_f64().unwrap() < 1.0);
    assert_eq!(plan["hops"][0]["join"], json!("LEFT JOIN"));
}

#[test]
fn the_erd_template_is_listed_last_and_reads_a_mermaid_diagram() {
    let mut s = Server::start(&fixtures().join("joins"), &[]);
    let templates = s.request("resources/templates/list", json!({}));
    let listed = templates["result"]["resourceTemplates"].as_array().unwrap();
    let last = listed.last().unwrap();
    assert_eq!(
        last["uriTemplate"],
        json!("printdex://{connection}/erd/{table}{?depth}")
    );
    assert!(listed[..listed.len() - 1]
        .iter()
        .all(|t| t["uriTemplate"].as_str().unwrap().starts_with("dbprint://")));
    let read = s.request(
        "resources/read",
        json!({"uri": "printdex://warehouse/erd/order_lines?depth=1"}),
    );
    let content = &read["result"]["contents"][0];
    assert_eq!(content["mimeType"], json!("text/vnd.mermaid"));
    let text = content["text"].as_str().unwrap();
    assert!(text.starts_with("erDiagram\n"), "{text}");
    for table in [
        "sales.order_lines",
        "sales.orders",
        "catalog.products",
        "sales.shipments",
        "sales.returns",
    ] {
        assert!(text.contains(&format!("\"{table}\"")), "{table}: {text}");
    }
    assert!(
        !text.contains("\"sales.customers\""),
        "depth 1 stops at the neighbours: {text}"
    );
    let deeper = s.request(
        "resources/read",
        json!({"uri": "printdex://warehouse/erd/order_lines?depth=2"}),
    );
    assert!(deeper["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("\"sales.customers\""));
    // The self-reference is drawn.
    let staff = s.request(
        "resources/read",
        json!({"uri": "printdex://warehouse/erd/employees"}),
    );
    assert!(staff["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("\"staff.employees\" }o--|| \"staff.employees\" : \"manager_id = employee_id\""));
    let errors = [
        ("printdex://warehouse/erd", "URI 'printdex://warehouse/erd' does not match printdex://{connection}/erd/{table}{?depth}."),
        ("printdex://warehouse/erd/orders", "table 'orders' names 2 tables in connection 'warehouse': warehouse.archive.orders, warehouse.sales.orders. Pass the full name of the one you mean."),
        ("printdex://warehouse/erd/ordr_lines", "table 'ordr_lines' names no table in connection 'warehouse'. The closest: warehouse.sales.order_lines."),
        ("printdex://warehouse/erd/payments?depth=0", "depth '0' in URI 'printdex://warehouse/erd/payments?depth=0' must be a whole number from 1 to 3."),
        ("printdex://nowhere/erd/payments", "connection 'nowhere' not in .dbprint.yaml. Configured: ['warehouse']"),
    ];
    for (uri, want) in errors {
        let answer = s.request("resources/read", json!({"uri": uri}));
        assert_eq!(answer["error"]["code"], json!(-32602), "{uri}: {answer}");
        assert_eq!(answer["error"]["message"], json!(want), "{uri}");
    }
}

fn erd(args: &[&str]) -> (String, String, i32) {
    let index = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .arg("erd")
        .arg("--project")
        .arg(fixtures().join("joins"))
        .arg("--index-dir")
        .arg(index.path())
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// Every text an SVG draws, one entry per `<text>` element.
fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            n.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn the_erd_command_draws_every_requested_table_and_key_in_each_format() {
    let tables = [
        "sales.orders",
        "sales.order_lines",
        "sales.shipments",
        "catalog.products",
        "staff.employees",
        "sales.stores",
    ];
    let (svg, err, code) = erd(&["--tables", &tables.join(","), "--format", "svg"]);
    assert_eq!(code, 0, "{err}");
    let texts = svg_texts(&svg);
    for t in tables {
        assert!(texts.iter().any(|x| x == t), "{t} not drawn: {texts:?}");
    }
    for key in [
        "order_id PK, FK",
        "line_no PK",
        "product_id FK",
        "manager_id FK",
        "employee_id PK",
        "manager_employee FK",
    ] {
        assert!(texts.iter().any(|x| x == key), "{key} not drawn: {texts:?}");
    }
    assert!(
        texts.iter().any(|x| x == "order_id, line_no  N:1"),
        "{texts:?}"
    );
    assert!(
        svg.contains("stroke-dasharray"),
        "inferred edges are dashed"
    );
    let (dot, _, code) = erd(&["--around", "order_lines", "--depth", "1", "--format", "dot"]);
    assert_eq!(code, 0);
    assert!(dot.starts_with("digraph erd {"), "{dot}");
    assert!(
        dot.contains("label=\"product_id (inferred, confirmed)  N:1\", style=dashed"),
        "{dot}"
    );
    assert!(dot.contains("label=\"order_id, line_no  N:1\"]"), "{dot}");
    let (mermaid, _, code) = erd(&[]);
    assert_eq!(code, 0);
    for t in [
        "\"audit.events\"",
        "\"marketing.campaigns\"",
        "\"archive.orders\"",
    ] {
        assert!(mermaid.contains(t), "{t}: {mermaid}");
    }
    assert!(
        !mermaid.contains("\"marketing.campaign_hits\" }o..|| \"sales.customers\""),
        "a rejected edge is never drawn"
    );
    let (_, err, code) = erd(&["--around", "orders"]);
    assert_eq!(code, 1);
    assert!(err.contains("names 2 tables"), "{err}");
}

/// Opens the SVG `printdex erd` writes in headless Chromium and checks every table name is
/// on the page it renders. CI installs Debian's chromium and runs it with `--ignored`.
#[test]
#[ignore = "needs chromium"]
fn chromium_opens_the_erd_svg_and_shows_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("erd.svg");
    let (svg, err, code) = erd(&["--format", "svg"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(&file, &svg).unwrap();
    let profile = dir.path().join("profile");
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(dom.contains("<svg"), "{dom}");
    let texts = svg_texts(&svg);
    for table in [
        "sales.orders",
        "sales.order_lines",
        "catalog.suppliers",
        "staff.employees",
        "marketing.campaigns",
        "audit.events",
    ] {
        assert!(texts.iter().any(|t| t == table), "{table} not in the SVG");
        assert!(
            dom.contains(table),
            "{table} not on the page chromium rendered"
        );
    }
}

#[test]
fn a_rejection_removed_under_a_running_server_reconnects_the_island() {
    let dir = tempfile::tempdir().unwrap();
    crate::util::copy_dir(&fixtures().join("joins"), dir.path());
    let mut s = Server::start(dir.path(), &[]);
    let ask = json!({"tables": ["campaign_hits", "customers"], "format": "json"});
    let (text, is_error) = s.call("plan_joins", ask.clone());
    assert!(
        is_error && text.starts_with("no join path connects"),
        "{text}"
    );
    // The person takes the verdict back: the inferred edge joins the plan.
    let file = dir
        .path()
        .join("prints/warehouse/warehouse/marketing/campaign_hits/relationships.annotations.yaml");
    std::fs::write(&file, "format_version: 1\nrefers_to: []\n").unwrap();
    let (text, is_error) = s.call("plan_joins", ask);
    assert!(!is_error, "{text}");
    let plan: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        written(&plan["hops"][0]),
        "marketing.campaign_hits > sales.customers"
    );
    assert_eq!(plan["hops"][0]["detection"], json!("inferred"));
}
