//! Runs every model under `regressions/` and `examples/` through the `zingrs` binary and checks
//! the verdict its header declares (see regressions/README.md). Each model runs in every search
//! mode and on every engine that applies (explicit DFS, BFS and exact storage, each with the
//! default reductions and without them; summary; coverability, unless it refuses the model;
//! `all`, which compares the engines); all must agree with the declaration.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common {
    pub mod models;
    pub mod schema;
}

use common::models::models;

struct Expectation {
    verdict: String,
    options: Vec<String>,
    message: Option<String>,
    code: Option<String>,
    errors: Option<usize>,
    /// ZING's "distinct states explored" (§6.7), checked on the explicit engine's runs.
    zing_states: Option<u64>,
}

fn header(text: &str) -> Option<Expectation> {
    let mut e = Expectation {
        verdict: String::new(),
        options: Vec::new(),
        message: None,
        code: None,
        errors: None,
        zing_states: None,
    };
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("//") else {
            if line.trim().is_empty() {
                continue;
            }
            break;
        };
        let rest = rest.trim();
        if let Some(v) = rest.strip_prefix("expect:") {
            e.verdict = v.trim().to_string();
        } else if let Some(v) = rest.strip_prefix("options:") {
            e.options = zingrs::cli::regress::option_words(v);
        } else if let Some(v) = rest.strip_prefix("message:") {
            e.message = Some(v.trim().to_string());
        } else if let Some(v) = rest.strip_prefix("code:") {
            e.code = Some(v.trim().to_string());
        } else if let Some(v) = rest.strip_prefix("errors:") {
            e.errors = v.trim().parse().ok();
        } else if let Some(v) = rest.strip_prefix("zing-states:") {
            e.zing_states = v.trim().parse().ok();
        }
    }
    (!e.verdict.is_empty()).then_some(e)
}

fn exit_of(verdict: &str) -> Option<i32> {
    Some(match verdict {
        "passed" => 0,
        "deadlock" => 2,
        "assertion-failed" | "target-reached" => 3,
        "runtime-error" => 4,
        "liveness-violated" => 6,
        "invalid" => 7,
        "bounded" => 8,
        _ => return None,
    })
}

/// The model checked in-process through the library ([`zingrs::check()`], with the options of
/// its header parsed as `zingrs check` parses them): the exit code and the verdict's kind
/// (`None` where the command line writes no JSON report: invalid input or options).
fn library(path: &Path, e: &Expectation) -> (Option<i32>, Option<String>) {
    use clap::Parser;
    let mut argv = vec!["zingrs".to_string(), "check".into()];
    argv.extend(e.options.iter().cloned());
    argv.push(path.display().to_string());
    let a = match zingrs::cli::Cli::try_parse_from(argv).map(|c| c.command) {
        Ok(zingrs::cli::Command::Check(a)) => a,
        _ => return (Some(7), None),
    };
    let mut opts = a.options();
    opts.limits.progress = false;
    let program = match zingrs::parse_file(&a.model, a.language()) {
        Ok(p) => p.program,
        Err(_) => return (Some(7), None),
    };
    match zingrs::check(&program, &opts) {
        Ok(r) => {
            let v = serde_json::to_value(&r.verdict).expect("a verdict serializes");
            (Some(r.exit_code), v["kind"].as_str().map(String::from))
        }
        Err(e) => (Some(e.exit_code()), None),
    }
}

/// Runs one model in one mode; returns a description of the mismatch, if any. `engine` gets
/// the engine that answered (from the JSON report), where there is one.
fn run(path: &Path, e: &Expectation, mode: &[&str], engine: &mut Option<String>) -> Option<String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_zingrs"));
    cmd.arg("check").arg(path).args(&e.options).args(mode);
    if e.verdict != "invalid" {
        cmd.args(["--format", "json"]);
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(err) => return Some(format!("cannot run zingrs: {err}")),
    };
    let code = out.status.code();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let Some(want) = exit_of(&e.verdict) else {
        return Some(format!("unknown expected verdict `{}`", e.verdict));
    };
    // the library's entry point gives the command line's answer (issue 35 item 15)
    if mode.is_empty() {
        let cli_kind = serde_json::from_str::<serde_json::Value>(&stdout)
            .ok()
            .and_then(|j| j["verdict"]["kind"].as_str().map(String::from));
        let lib = library(path, e);
        if lib != (code, cli_kind.clone()) {
            return Some(format!(
                "the library answers {lib:?}, the command line (exit, verdict) {:?}",
                (code, cli_kind)
            ));
        }
    }
    // a plain search may stop at its depth bound where summaries decide: inconclusive, not a
    // disagreement
    let explicit =
        mode.contains(&"explicit") || mode.contains(&"--bfs") || mode.contains(&"--exact");
    // the coverability engine refuses what it does not handle (recursion, Zing, select):
    // that mode then does not apply
    let refused = stderr.contains("error: the coverability engine");
    if mode.contains(&"coverability") && code == Some(7) && refused && e.verdict != "invalid" {
        return None;
    }
    if explicit && want == 0 && code == Some(8) {
        return None;
    }
    // the coverability engine does not look for deadlocks: where threads can block it says so
    // (exit 8) instead of passing; with --no-deadlock it must decide the rest
    if mode.contains(&"--no-deadlock") && e.options.iter().any(|o| o == "--no-deadlock") {
        return None;
    }
    if mode.contains(&"coverability") {
        let unchecked = code == Some(8) && stdout.contains("this engine does not make");
        if (want == 0 || want == 2) && unchecked && !mode.contains(&"--no-deadlock") {
            return None;
        }
        if want == 2 && mode.contains(&"--no-deadlock") {
            return None;
        }
    }
    if code != Some(want) {
        return Some(format!(
            "{mode:?}: expected {} (exit {want}), got exit {code:?}\n--- stdout\n{stdout}--- stderr\n{stderr}",
            e.verdict
        ));
    }
    if e.verdict == "invalid" {
        if let Some(m) = &e.message {
            if !stderr.contains(m.as_str()) {
                return Some(format!("message `{m}` not in:\n{stderr}"));
            }
        }
        if let Some(c) = &e.code {
            if !stderr.contains(&format!("[{c}]")) {
                return Some(format!("code [{c}] not in:\n{stderr}"));
            }
        }
        if let Some(n) = e.errors {
            let got = stderr.matches("error[").count() + stderr.matches("error:").count() - 1;
            if got < n {
                return Some(format!(
                    "expected at least {n} errors, got {got}:\n{stderr}"
                ));
            }
        }
        if !stderr.contains(&format!("{}:", path.display())) {
            return Some(format!("no file:line:col location in:\n{stderr}"));
        }
        return None;
    }
    let json: serde_json::Value = match serde_json::from_str(&stdout) {
        Ok(j) => j,
        Err(err) => return Some(format!("bad JSON ({err}):\n{stdout}")),
    };
    if let Err(e) = std::panic::catch_unwind(|| common::schema::check(&json)) {
        let why = e
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "schema violation".into());
        return Some(why);
    }
    *engine = json["engine"].as_str().map(String::from);
    let kind = json["verdict"]["kind"].as_str().unwrap_or("");
    if kind != e.verdict {
        return Some(format!("expected verdict {}, got {kind}", e.verdict));
    }
    if (want == 3 || want == 6)
        && json["trace"]["steps"]
            .as_array()
            .is_none_or(|s| s.is_empty())
    {
        return Some("an error verdict without a trace".into());
    }
    // ZING's count is kept by the searches without partial-order reduction and without
    // symmetry (which stores one state of each set of reorderings of the processes)
    let unreduced = mode
        .windows(2)
        .any(|w| w[0] == "--reduction" && (w[1] == "none" || w[1] == "transactions"))
        && mode.windows(2).any(|w| w == ["--symmetry", "off"]);
    if let (Some(n), true) = (e.zing_states, json["engine"] == "explicit") {
        let got = json["stats"]["zing_states"].as_u64();
        if got != Some(n) && (unreduced || got.is_some()) {
            return Some(format!("{mode:?}: ZING's count {got:?}, expected {n}"));
        }
    }
    None
}

fn check_dir(dirs: &[&str], min: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in dirs {
        models(&root.join(d), &mut files);
    }
    assert!(
        files.len() >= min,
        "expected at least {min} models under {dirs:?}, found {}",
        files.len()
    );
    let jobs: Vec<(PathBuf, Expectation)> = files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("readable model");
            let e =
                header(&text).unwrap_or_else(|| panic!("{}: no `// expect:` header", f.display()));
            (f, e)
        })
        .collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunks: Vec<Vec<(PathBuf, Expectation)>> = {
        let mut c: Vec<Vec<_>> = (0..threads).map(|_| Vec::new()).collect();
        for (i, j) in jobs.into_iter().enumerate() {
            c[i % threads].push(j);
        }
        c
    };
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut fails = Vec::new();
                    for (f, e) in chunk {
                        let pinned = e.options.iter().any(|o| o == "--engine");
                        // a search order pinned (which of two reachable errors ZING reports)
                        // runs in that order only
                        let ordered = e.options.iter().any(|o| o == "--search");
                        let modes: &[&[&str]] = if e.verdict == "invalid" {
                            &[&[]]
                        } else if ordered {
                            &[
                                &[],
                                &["--exact"],
                                &["--engine", "explicit"],
                                &[
                                    "--engine",
                                    "explicit",
                                    "--reduction",
                                    "none",
                                    "--symmetry",
                                    "off",
                                ],
                            ]
                        } else if pinned {
                            &[
                                &[],
                                &["--bfs"],
                                &["--exact"],
                                &["--reduction", "none", "--symmetry", "off"],
                                &["--reduction", "transactions", "--symmetry", "off"],
                            ]
                        } else {
                            &[
                                &[],
                                &["--bfs"],
                                &["--exact"],
                                &["--engine", "explicit"],
                                &[
                                    "--engine",
                                    "explicit",
                                    "--reduction",
                                    "none",
                                    "--symmetry",
                                    "off",
                                ],
                                &[
                                    "--engine",
                                    "explicit",
                                    "--reduction",
                                    "transactions",
                                    "--symmetry",
                                    "off",
                                ],
                                &["--engine", "explicit", "--bfs", "--reduction", "none"],
                                &["--engine", "summary"],
                                &["--engine", "coverability"],
                                &["--engine", "coverability", "--no-deadlock"],
                                &["--engine", "all"],
                            ]
                        };
                        let mut default_engine = None;
                        for (i, mode) in modes.iter().enumerate() {
                            // `--engine E` alone repeats the default run where the default
                            // engine was E
                            let repeats = matches!(mode, [flag, name] if *flag == "--engine"
                                && default_engine.as_deref() == Some(*name));
                            if repeats {
                                continue;
                            }
                            let mut engine = None;
                            let mismatch = run(f, e, mode, &mut engine);
                            if i == 0 {
                                default_engine = engine;
                            }
                            if let Some(why) = mismatch {
                                fails.push(format!("{}: {why}", f.display()));
                                break;
                            }
                        }
                    }
                    fails
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} model(s) disagree with their declared verdict:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn sequential_boolean_programs() {
    check_dir(&["regressions/bp"], 60);
}

#[test]
fn invalid_boolean_programs() {
    check_dir(&["regressions/bp-invalid"], 20);
}

#[test]
fn examples() {
    check_dir(&["examples"], 9);
}

#[test]
fn concurrent_boolean_programs() {
    check_dir(&["regressions/bp-threads"], 12);
}

/// `--liveness` (accepting, non-terminating and non-progress cycles), Zing and boolean
/// programs: each pins the explicit engine, the one that checks liveness.
#[test]
fn liveness_models() {
    check_dir(&["regressions/liveness"], 12);
}

#[test]
fn zing_models() {
    check_dir(&["regressions/zing"], 60);
}
