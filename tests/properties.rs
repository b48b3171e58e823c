//! `check --show-properties`, `--property ID` and `--keep-going`'s per-property table (issue
//! 35 item 11): the ids and places listed, one property checked alone, the table's statuses,
//! and, on random programs of both languages, that a property checked alone is violated
//! exactly when the table of an exhaustive `--keep-going` run says it is. `--coverage` (item
//! 13): the statements never run, the same from every engine, on a model and on random ones.

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{err, out, zingrs};
use zingrs::check::{CheckOptions, Engine};
use zingrs::report::exit;
use zingrs_lang::Lang;

/// Two assertions, a division by a chosen value and a field written through a reference
/// that is null on some path.
const PROPS: &str = r#"class Node { int v; };
range Small 0 .. 2;
class Main {
  static int x;
  static Node n;
  static activate void main() {
    Small d;
    d = choose(Small);
    x = 10 / d;
    assert(x != 5);
    if (x == 10) { n = new Node; }
    n.v = 1;
    assert(x < 100, "small");
  }
};
"#;

fn scratch(name: &str, text: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-props-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write model");
    p.display().to_string()
}

#[test]
fn show_properties_lists_every_check_with_a_stable_id_and_its_place() {
    let m = scratch("props.zing", PROPS);
    let o = zingrs(&["check", &m, "--show-properties"]);
    assert_eq!(o.status.code(), Some(exit::PASSED), "{}", err(&o));
    let text = out(&o);
    for line in [
        "Main.main.divide-by-zero.1",
        "Main.main.arithmetic-overflow.1",
        "Main.main.assertion.1",
        "Main.main.null-dereference.1",
        "Main.main.assertion.2",
        "deadlock",
    ] {
        assert!(text.contains(line), "{line} missing from:\n{text}");
    }
    let row = text
        .lines()
        .find(|l| l.contains("Main.main.assertion.1"))
        .expect("listed");
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        words[1..],
        ["assertion", "props.zing:10:5", "assert(x", "!=", "5);"]
    );
    // JSON: the same list, with the places
    let o = zingrs(&["check", &m, "--show-properties", "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let props = j["properties"].as_array().expect("a list");
    assert_eq!(props.len(), 6, "{j}");
    let a2 = props
        .iter()
        .find(|p| p["id"] == "Main.main.assertion.2")
        .expect("listed");
    assert_eq!(
        (a2["line"].as_u64(), a2["column"].as_u64()),
        (Some(13), Some(5))
    );
    assert_eq!(a2["procedure"], "Main.main");
    // a boolean program: its assertions and the labels asked for; no runtime checks
    let bp = scratch(
        "two.bp",
        "void main() begin\n  decl x;\n  x := *;\n  assert(x);\nL: skip;\nend\n",
    );
    let o = zingrs(&["check", &bp, "--show-properties", "--target", "L"]);
    let text = out(&o);
    assert!(
        text.contains("main.assertion.1") && text.contains("label.L"),
        "{text}"
    );
    assert!(
        !text.contains("deadlock"),
        "a sequential program cannot deadlock:\n{text}"
    );
}

#[test]
fn property_checks_only_the_property_named() {
    let m = scratch("props-one.zing", PROPS);
    for (id, want) in [
        ("Main.main.divide-by-zero.1", exit::RUNTIME_ERROR),
        ("Main.main.assertion.1", exit::ASSERTION),
        // x == 5 (d = 2) is the only way to a null `n`: with the first assertion an assume,
        // that path is gone
        ("Main.main.null-dereference.1", exit::PASSED),
        ("Main.main.assertion.2", exit::PASSED),
        ("Main.main.arithmetic-overflow.1", exit::PASSED),
    ] {
        for engine in ["explicit", "summary"] {
            let o = zingrs(&["check", &m, "--property", id, "--engine", engine, "-q"]);
            assert_eq!(o.status.code(), Some(want), "{id} {engine}: {}", out(&o));
        }
    }
    // two at once
    let o = zingrs(&[
        "check",
        &m,
        "--property",
        "Main.main.assertion.2",
        "--property",
        "Main.main.assertion.1",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(exit::ASSERTION));
    // an id the model does not have
    let o = zingrs(&["check", &m, "--property", "Main.main.assertion.9"]);
    assert_eq!(o.status.code(), Some(exit::INVALID));
    assert!(
        err(&o).contains("no property with this id") && err(&o).contains("--show-properties"),
        "{}",
        err(&o)
    );
    let o = zingrs(&["check", &m, "--property", "deadlock", "--ltl", "G true"]);
    assert_eq!(o.status.code(), Some(exit::INVALID), "{}", err(&o));
}

/// An assertion whose condition may be false or true in one state: left out, it is an
/// assume whose outcomes keep their places, so the saved path replays with every assertion
/// checked.
#[test]
fn a_counterexample_under_a_selection_replays() {
    let bp = scratch(
        "nondet.bp",
        "decl g;\nvoid main() begin\n  assert(*);\n  g := T;\n  assert(!g);\nend\n",
    );
    let saved = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-props-{}.json", std::process::id()));
    let s = saved.display().to_string();
    for engine in ["explicit", "summary", "bdd"] {
        let o = zingrs(&[
            "check",
            &bp,
            "--property",
            "main.assertion.2",
            "--engine",
            engine,
            "-q",
            "-o",
            &s,
        ]);
        assert_eq!(
            o.status.code(),
            Some(exit::ASSERTION),
            "{engine}: {}",
            out(&o)
        );
        let o = zingrs(&["replay", &bp, &s]);
        assert_eq!(
            o.status.code(),
            Some(exit::ASSERTION),
            "{engine}: {}",
            err(&o)
        );
        assert!(out(&o).contains("line 5"), "{}", out(&o));
    }
    // a deadlock where the only way on is an assertion left out (it waits there, as at an
    // assume): replay makes the report's selection again, and without it the path is wrong
    let bp = scratch(
        "deadlock.bp",
        "decl g;\nvoid t() begin\n  assert(g);\nend\nvoid main() begin\n  start_thread t();\n  assume(g);\nend\n",
    );
    let o = zingrs(&[
        "check",
        &bp,
        "--property",
        "deadlock",
        "--engine",
        "explicit",
        "-q",
        "-o",
        &s,
    ]);
    assert_eq!(o.status.code(), Some(exit::DEADLOCK), "{}", out(&o));
    let o = zingrs(&["replay", &bp, &s]);
    assert_eq!(o.status.code(), Some(exit::DEADLOCK), "{}", err(&o));
    let mut j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&saved).expect("saved")).expect("JSON");
    j.as_object_mut().expect("an object").remove("selected");
    std::fs::write(&saved, serde_json::to_vec(&j).expect("JSON")).expect("write");
    let o = zingrs(&["replay", &bp, &s]);
    assert_eq!(o.status.code(), Some(exit::INTERNAL), "{}", err(&o));
    let _ = std::fs::remove_file(saved);
}

#[test]
fn keep_going_ends_with_each_property_s_status() {
    let m = scratch("props-table.zing", PROPS);
    let o = zingrs(&["check", &m, "--keep-going", "--trace", "none"]);
    assert_eq!(o.status.code(), Some(exit::RUNTIME_ERROR), "{}", out(&o));
    let text = out(&o);
    let status = |id: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no row {id} in:\n{text}"))
            .to_string()
    };
    assert!(status("Main.main.divide-by-zero.1").contains(" violated"));
    assert!(status("Main.main.assertion.1").contains(" violated"));
    assert!(status("Main.main.null-dereference.1").contains("not violated"));
    assert!(status("Main.main.assertion.2").contains("not violated"));
    // JSON, and a search a limit cut: what was not found violated is unknown
    let o = zingrs(&[
        "check",
        &m,
        "--keep-going",
        "--format",
        "json",
        "--engine",
        "explicit",
        "--reduction",
        "none",
        "--max-states",
        "4",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let rows = j["properties"].as_array().expect("the table");
    assert!(!rows.is_empty());
    for r in rows {
        assert!(r["status"] == "violated" || r["status"] == "unknown", "{r}");
    }
    // without --keep-going there is no table
    let o = zingrs(&["check", &m, "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(j.get("properties").is_none());
}

/// The statuses the table of an exhaustive `--keep-going` check gives, by id.
fn table(program: &zingrs_lang::ir::Program, base: &CheckOptions) -> Option<Vec<(String, bool)>> {
    let r = zingrs::check(
        program,
        &CheckOptions {
            keep_going: true,
            ..base.clone()
        },
    )
    .ok()?;
    if !r.exhaustive {
        return None;
    }
    Some(
        r.properties
            .iter()
            .map(|p| (p.id.clone(), p.status == "violated"))
            .collect(),
    )
}

/// On random boolean programs and Zing models, with the explicit and summary engines (and
/// bdd on sequential boolean programs): each property checked alone is violated exactly when
/// the exhaustive `--keep-going` table says so (the deadlock check: at least when it says so).
#[test]
fn a_property_alone_is_violated_exactly_when_the_table_says_so() {
    let mut models = Vec::new();
    for seed in 0..25 {
        models.push((
            format!("bp{seed}"),
            zingrs::gen::random_bp(seed, 8),
            Lang::Bp,
        ));
        models.push((
            format!("zing{seed}"),
            zingrs::gen::random_zing(seed),
            Lang::Zing,
        ));
    }
    let (mut compared, mut violations) = (0, 0);
    for (name, text, lang) in &models {
        let Ok(parsed) = zingrs::parse_str(name, text, *lang) else {
            continue;
        };
        let program = parsed.program;
        let mut engines = vec![Engine::Explicit, Engine::Summary];
        if *lang == Lang::Bp && !program.is_concurrent() {
            engines.push(Engine::Bdd);
        }
        for engine in engines {
            let base = CheckOptions {
                engine,
                trace: false,
                limits: zingrs::search::Limits {
                    max_states: Some(20_000),
                    ..Default::default()
                },
                ..CheckOptions::default()
            };
            let Some(rows) = table(&program, &base) else {
                continue;
            };
            for (id, violated) in rows {
                let alone = zingrs::check(
                    &program,
                    &CheckOptions {
                        properties: vec![id.clone()],
                        ..base.clone()
                    },
                );
                let Ok(r) = alone else {
                    continue;
                };
                let found = matches!(
                    r.exit_code,
                    exit::ASSERTION | exit::DEADLOCK | exit::RUNTIME_ERROR
                );
                if r.exit_code == exit::PASSED || found {
                    // a thread that can go on only through an assertion left out waits there:
                    // the deadlock check alone may find a deadlock where the table saw the
                    // assertion fail, never miss one
                    let agrees = if id == "deadlock" {
                        found || !violated
                    } else {
                        found == violated
                    };
                    assert!(
                        agrees,
                        "{name} {engine:?} {id}: alone exit {}, the table says violated = {violated}\n{text}",
                        r.exit_code
                    );
                    compared += 1;
                    violations += usize::from(found);
                }
            }
        }
    }
    assert!(
        compared > 100 && violations > 20 && compared - violations > 20,
        "only {compared} properties compared, {violations} of them violated"
    );
}

/// Dead code: a procedure only called under a false condition.
const DEAD: &str = "decl g;
void helper() begin
  g := T;
end
void never() begin
  g := F;
end
void main() begin
  decl x;
  x := F;
  if (x) then
    never();
  fi
  helper();
  assert(g);
end
";

#[test]
fn coverage_lists_the_statements_no_engine_ran() {
    let m = scratch("dead.bp", DEAD);
    for engine in ["explicit", "summary", "bdd"] {
        let o = zingrs(&["check", &m, "--coverage", "--engine", engine]);
        assert_eq!(o.status.code(), Some(exit::PASSED), "{}", err(&o));
        let text = out(&o);
        assert!(
            text.contains("Coverage: 7 of 10 statements ran; 3 never did:"),
            "{engine}:\n{text}"
        );
        assert!(
            text.contains("unreached in never:\n    dead.bp:6:3  g := F"),
            "{text}"
        );
        assert!(
            text.contains("unreached in main:\n    dead.bp:12:5  never()"),
            "{text}"
        );
        let o = zingrs(&[
            "check",
            &m,
            "--coverage",
            "--engine",
            engine,
            "--format",
            "json",
        ]);
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(j["coverage"]["complete"], true);
        assert_eq!(j["coverage"]["unreached"].as_array().map(Vec::len), Some(3));
    }
    // a search a limit cut lists nothing as unreached
    let o = zingrs(&[
        "check",
        &m,
        "--coverage",
        "--engine",
        "explicit",
        "--max-states",
        "2",
    ]);
    assert!(
        out(&o).contains("the search did not complete"),
        "{}",
        out(&o)
    );
    // without --coverage, no section
    let o = zingrs(&["check", &m, "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(j.get("coverage").is_none());
}

/// On random boolean programs and Zing models: every engine that completes a check (the
/// explicit search with and without transactions, the summary engine, bdd on sequential
/// boolean programs) leaves the same statements unreached.
#[test]
fn every_engine_leaves_the_same_statements_unreached() {
    use zingrs::search::Reduction;
    let (mut compared, mut dead) = (0, 0);
    for seed in 0..30 {
        for (text, lang) in [
            (zingrs::gen::random_bp(seed, 8), Lang::Bp),
            (zingrs::gen::random_zing(seed), Lang::Zing),
        ] {
            let Ok(parsed) = zingrs::parse_str("m", &text, lang) else {
                continue;
            };
            let program = parsed.program;
            let mut runs = vec![
                (Engine::Explicit, Some(Reduction::None)),
                (Engine::Explicit, None),
                (Engine::Summary, None),
            ];
            if lang == Lang::Bp && !program.is_concurrent() {
                runs.push((Engine::Bdd, None));
            }
            let mut lists = Vec::new();
            for (engine, reduction) in runs {
                let opts = CheckOptions {
                    engine,
                    reduction,
                    coverage: true,
                    keep_going: true,
                    trace: false,
                    limits: zingrs::search::Limits {
                        max_states: Some(20_000),
                        ..Default::default()
                    },
                    ..CheckOptions::default()
                };
                let Ok(r) = zingrs::check(&program, &opts) else {
                    continue;
                };
                let c = r.coverage.expect("a coverage section");
                if c.complete {
                    lists.push((engine, reduction, c.unreached));
                }
            }
            for w in lists.windows(2) {
                assert_eq!(
                    w[0].2, w[1].2,
                    "seed {seed} {lang:?}: {:?}/{:?} and {:?}/{:?} differ\n{text}",
                    w[0].0, w[0].1, w[1].0, w[1].1
                );
                compared += 1;
            }
            dead += lists.first().map_or(0, |l| l.2.len());
        }
    }
    assert!(
        compared > 60 && dead > 10,
        "{compared} pairs compared, {dead} statements unreached"
    );
}
