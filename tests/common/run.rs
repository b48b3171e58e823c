//! Running the `zingrs` binary from the integration tests. Every JSON report it prints, or
//! writes with `-o`, is checked against `docs/json-schema.json`.
// each test binary includes this module and uses only some of it
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs zingrs with `args`.
pub fn zingrs(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args(args)
        .output()
        .expect("zingrs runs");
    super::schema::check_text(&o.stdout);
    if let Some(i) = args.iter().position(|a| *a == "-o" || *a == "--output") {
        if let Some(Ok(text)) = args.get(i + 1).map(std::fs::read) {
            super::schema::check_text(&text);
        }
    }
    o
}

/// The exit code, verdict kind and stored states of `zingrs check PATH ARGS --format json
/// --timeout 60`.
pub fn check_json<S: AsRef<str>>(path: &std::path::Path, args: &[S]) -> (i32, String, u64) {
    let path = path.display().to_string();
    let mut all = vec!["check", path.as_str()];
    all.extend(args.iter().map(|a| a.as_ref()));
    all.extend(["--format", "json", "--timeout", "60"]);
    let o = zingrs(&all);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{all:?}: no JSON ({e}): {}", err(&o)));
    (
        o.status.code().expect("an exit code"),
        json["verdict"]["kind"].as_str().unwrap_or("").to_string(),
        json["stats"]["states"].as_u64().unwrap_or(0),
    )
}

/// Runs zingrs with `args` and `input` on standard input.
pub fn with_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zingrs runs");
    // zingrs may exit before reading its input (a usage error): a broken pipe is no failure
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    let o = child.wait_with_output().expect("zingrs ends");
    super::schema::check_text(&o.stdout);
    o
}

/// Standard output as text.
pub fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The path of the Zing regression model `name` (in `regressions/zing/`).
pub fn zing_model(name: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/regressions/zing/").to_string() + name
}

/// The JSON report `r` with its path's folded runs (`{"repeat": n, "choices": [...]}`)
/// written out choice by choice, as a test that edits or counts choices wants them.
pub fn unfolded_path(mut r: serde_json::Value) -> serde_json::Value {
    if let Some(cs) = r["path"]["choices"].as_array() {
        let mut plain = Vec::new();
        for c in cs {
            match c["repeat"].as_u64() {
                Some(n) => (0..n).for_each(|_| {
                    plain.extend(c["choices"].as_array().expect("a run's choices").clone())
                }),
                None => plain.push(c.clone()),
            }
        }
        r["path"]["choices"] = serde_json::Value::Array(plain);
    }
    r
}

/// The row of `engine` in the `engines` table of an `--engine all` JSON report.
pub fn engine_row(r: &serde_json::Value, engine: &str) -> serde_json::Value {
    r["engines"]
        .as_array()
        .expect("an engines table")
        .iter()
        .find(|e| e["engine"] == engine)
        .unwrap_or_else(|| panic!("no row for {engine}"))
        .clone()
}
