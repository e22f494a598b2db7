//! Driving `printdex pz …`: the `pz docs` commands, the oracle of the docs fixture, and a
//! loopback HTTP server that plays the docs site (127.0.0.1 only, bounded in time, and it
//! stops by itself when dropped or after its deadline).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

// `PzClient` lives with the rest of the harness; pz's tests find it here too.
pub use crate::util::PzClient;
use crate::util::{fixtures, pz_command, run};

pub fn docs_fixture() -> PathBuf {
    fixtures().join("pz-docs")
}

/// The real pz docs corpus beside the repository (the workplace's `shared/pz-docs`), for
/// the tests that run only when asked (`cargo test -- --ignored`): asked for and absent
/// is a failure, never a pass.
pub fn real_docs() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/pz-docs");
    assert!(
        dir.join("expected.jsonl").exists(),
        "{} is absent: this test needs the real pz docs corpus",
        dir.display()
    );
    dir
}

/// `printdex pz docs <args…>` → (exit ok, stdout, stderr).
pub fn docs_cmd(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = run(pz_command(cache, env).arg("pz").arg("docs").args(args));
    (out.ok(), out.stdout, out.stderr)
}

/// What the loopback site answers for one path.
#[derive(Clone)]
pub enum Reply {
    /// 200 with this body and its Content-Length.
    Body(Vec<u8>),
    Status(u16),
    /// 200 declaring this Content-Length, sending nothing.
    Declares(u64),
    /// 200 with no Content-Length: this many bytes, then close.
    Streams(u64),
    /// Accept, read the request, never answer (until the server stops).
    Hang,
}

pub type Route = Arc<dyn Fn(&str) -> Reply + Send + Sync>;

/// A docs site on 127.0.0.1.
pub struct Loopback {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    pub requests: Arc<Mutex<Vec<String>>>,
}

/// Longest a loopback site lives, whatever the test does.
const SITE_DEADLINE: Duration = Duration::from_secs(120);

impl Loopback {
    pub fn start(route: Route) -> Loopback {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (stop2, requests2) = (stop.clone(), requests.clone());
        let handle = std::thread::spawn(move || {
            let started = Instant::now();
            let mut workers = Vec::new();
            while !stop2.load(Ordering::Acquire) && started.elapsed() < SITE_DEADLINE {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (route, stop, requests) =
                            (route.clone(), stop2.clone(), requests2.clone());
                        workers.push(std::thread::spawn(move || {
                            serve_one(stream, &route, &stop, &requests)
                        }));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            stop2.store(true, Ordering::Release);
            for w in workers {
                let _ = w.join();
            }
        });
        Loopback {
            addr,
            stop,
            handle: Some(handle),
            requests,
        }
    }

    /// Serve the files of a directory (404 for anything else).
    pub fn files(dir: PathBuf) -> Loopback {
        Self::start(Arc::new(move |path: &str| {
            let name = path.trim_start_matches('/');
            match std::fs::read(dir.join(name)) {
                Ok(b) if !name.is_empty() && !name.contains("..") => Reply::Body(b),
                _ => Reply::Status(404),
            }
        }))
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve_one(
    mut stream: TcpStream,
    route: &Route,
    stop: &AtomicBool,
    requests: &Mutex<Vec<String>>,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    if let Ok(mut r) = requests.lock() {
        r.push(path.clone());
    }
    let write = |stream: &mut TcpStream, status: u16, length: Option<u64>| {
        let mut h = format!("HTTP/1.1 {status} X\r\nConnection: close\r\n");
        if let Some(n) = length {
            h.push_str(&format!("Content-Length: {n}\r\n"));
        }
        h.push_str("\r\n");
        stream.write_all(h.as_bytes())
    };
    let _ = match route(&path) {
        Reply::Body(b) => {
            write(&mut stream, 200, Some(b.len() as u64)).and_then(|_| stream.write_all(&b))
        }
        Reply::Status(s) => write(&mut stream, s, Some(0)),
        Reply::Declares(n) => write(&mut stream, 200, Some(n)),
        Reply::Streams(n) => write(&mut stream, 200, None).and_then(|_| {
            let chunk = vec![b'x'; 64 * 1024];
            let mut sent = 0u64;
            while sent < n && !stop.load(Ordering::Acquire) {
                let k = chunk.len().min((n - sent) as usize);
                stream.write_all(&chunk[..k])?;
                sent += k as u64;
            }
            Ok(())
        }),
        Reply::Hang => {
            let until = Instant::now() + SITE_DEADLINE;
            while !stop.load(Ordering::Acquire) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(())
        }
    };
    let _ = stream.flush();
}

/// A port nothing listens on (bound, then released).
pub fn closed_port_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    drop(l);
    format!("http://{addr}")
}

/// The fixture's oracle records: (query, limit, expected record).
pub fn oracle_records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("expected.jsonl"))
        .expect("expected.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect()
}

/// Ask every oracle query over MCP and return the mismatches (empty when all agree).
pub fn compare_with_oracle(client: &mut PzClient, dir: &Path) -> (usize, Vec<String>) {
    let mut bad = Vec::new();
    let records = oracle_records(dir);
    for rec in &records {
        let mut args = json!({"query": rec["query"]});
        if !rec["limit"].is_null() {
            args["limit"] = rec["limit"].clone();
        }
        let env = client.envelope("pz_docs_search", args);
        let want = if rec["ok"] == json!(true) {
            json!({"ok": true, "query": rec["query"], "hits": rec["hits"]})
        } else {
            json!({"ok": false, "errors": [{"code": rec["error"]["code"], "message": rec["error"]["message"], "next_step": rec["error"]["next_step"]}]})
        };
        if env != want {
            bad.push(format!("{}:\n got  {env}\n want {want}", rec["query"]));
        }
    }
    (records.len(), bad)
}
