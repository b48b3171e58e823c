//! Counterexamples as a user reads them (issue 35): thread numbers that stay the same for a
//! whole trace, values in source terms, bounded JSON reports, and `--engine all`'s table.

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{engine_row, err, out, zingrs};

/// Writes `text` to a fresh file named `name` in a directory of its own.
fn model(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "zingrs-traces-{}-{}",
        std::process::id(),
        name.replace('.', "-")
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("the model is written");
    path
}

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("no JSON ({e}): {}", err(o)))
}

/// main starts w and v and ends; w ends before v runs: after each end the thread list
/// shrinks, but the steps keep the numbers the processes were started with.
const RENUMBER: &str = "decl g, h;
void w() begin
  g := T;
end
void v() begin
  h := T;
  assert(!g);
end
void main() begin
  start_thread w();
  start_thread v();
end
";

#[test]
fn thread_numbers_stay_the_same_when_a_thread_ends() {
    let path = model("renumber.bp", RENUMBER);
    let p = path.to_str().unwrap();
    for engine in ["explicit", "summary"] {
        let o = zingrs(&["check", p, "--engine", engine, "--format", "json"]);
        assert_eq!(o.status.code(), Some(3), "{engine}: {}", err(&o));
        let r = json(&o);
        let steps = r["trace"]["steps"].as_array().expect("steps");
        // each step's thread is the process that started in the procedure it runs
        for s in steps {
            let want = match s["procedure"].as_str().unwrap() {
                "main" => 0,
                "w" => 1,
                "v" => 2,
                other => panic!("{other}"),
            };
            assert_eq!(s["thread"], want, "{engine}: {s}");
        }
        let last = steps.last().unwrap();
        assert_eq!(last["statement"], "assert(!g)", "{engine}");
        assert_eq!(last["thread"], 2, "{engine}");
        // the text trace and Bebop's layout say the same
        let o = zingrs(&["check", p, "--engine", engine]);
        let text = out(&o);
        let assert_line = text
            .lines()
            .find(|l| l.contains("assert(!g)") && l.trim_start().starts_with('#'))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(assert_line.contains(" t2 "), "{engine}: {text}");
        let g_line = text.lines().find(|l| l.contains("g := T")).unwrap();
        assert!(g_line.contains(" t1 "), "{engine}: {text}");
        let o = zingrs(&["check", p, "--engine", engine, "--format", "bebop"]);
        let bebop = out(&o);
        let first = bebop.lines().nth(1).unwrap_or_default();
        assert!(first.starts_with("Thread 2 Line 7"), "{engine}: {bebop}");
    }
}

/// Every kind of value a Zing trace shows.
const VALUES: &str = "enum Color { Red, Green, Blue };
array Arr[3] int;
set S int;
chan C int;
class Main {
    static Color col;
    static bool flag;
    activate static void main() {
        Arr a;
        S s;
        C c;
        int x;
        int sum;
        a = new Arr;
        s = new S;
        c = new C;
        col = Color.Green;
        col = choose(Color);
        flag = true;
        a[0] = 2;
        a[1] = 1;
        a[2] = 2;
        s = s + 1;
        s = s + 2;
        s = s - 1;
        send(c, 5);
        send(c, 6);
        foreach (int e in a) { sum = sum + e; }
        x = 2;
        x = choose(s);
        assert(col != Color.Blue);
    }
};
";

#[test]
fn zing_values_are_shown_in_source_terms() {
    let path = model("values.zing", VALUES);
    let p = path.to_str().unwrap();
    let o = zingrs(&["check", p]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let text = out(&o);
    let line = |stmt: &str| -> String {
        let mut ls = text.lines();
        ls.find(|l| l.contains(stmt))
            .unwrap_or_else(|| panic!("{stmt}: {text}"));
        ls.next().unwrap_or_default().to_string()
    };
    // what each step changed, as the source writes it
    assert_eq!(
        line("col = Color.Green;").trim(),
        "changed: Main.col = Color.Green"
    );
    assert_eq!(
        line("col = choose(Color);").trim(),
        "changed: Main.col = Color.Blue"
    );
    assert_eq!(line("flag = true;").trim(), "changed: Main.flag = true");
    assert_eq!(line("a[0] = 2;").trim(), "changed: Arr#1[0] = 2");
    assert_eq!(line("s = s - 1;").trim(), "changed: S#2 = {2}");
    assert_eq!(line("send(c, 6);").trim(), "changed: C#3 = <5, 6>");
    // a choose that takes the value the variable had still shows it
    assert_eq!(line("x = choose(s);").trim(), "changed: x = 2");
    let last = text.lines().find(|l| l.contains("assert(col")).unwrap();
    for v in [
        "Main.col=Color.Blue",
        "Main.flag=true",
        "a=[2, 1, 2]",
        "s={2}",
        "c=<5, 6>",
    ] {
        assert!(last.contains(v), "{v}: {last}");
    }
    assert!(!text.contains("foreach.index"), "{text}");
    // no step's statement is a bare variable: the element fetch shows the loop's header
    let o = zingrs(&["check", p, "--format", "json"]);
    let r = json(&o);
    let steps = r["trace"]["steps"].as_array().unwrap();
    for s in steps.iter().filter(|s| s.get("folded").is_none()) {
        let st = s["statement"].as_str().unwrap();
        assert!(!st.chars().all(|c| c.is_alphanumeric() || c == '_'), "{s}");
        for b in s["values"].as_array().unwrap() {
            assert!(!b["name"].as_str().unwrap().contains("foreach"), "{s}");
        }
    }
    let last = steps.last().unwrap();
    let value = |name: &str| -> serde_json::Value {
        last["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {last}"))["value"]
            .clone()
    };
    assert_eq!(value("Main.col"), "Color.Blue");
    assert_eq!(value("Main.flag"), true);
    assert_eq!(value("a"), serde_json::json!([2, 1, 2]));
    assert_eq!(value("s"), serde_json::json!({ "set": [2] }));
    assert_eq!(value("c"), serde_json::json!({ "chan": [5, 6] }));
    assert_eq!(value("x"), 2);
}

/// `--engine all` on RENUMBER: the explicit and summary engines end main first and find a
/// 7-step counterexample, the coverability engine a shorter one.
#[test]
fn engine_all_reports_the_shortest_counterexample_and_every_engine() {
    let path = model("all.bp", RENUMBER);
    let p = path.to_str().unwrap();
    let o = zingrs(&["check", p, "--engine", "all", "--format", "json"]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let r = json(&o);
    let engines = r["engines"].as_array().expect("an engines array");
    let names: Vec<&str> = engines
        .iter()
        .map(|e| e["engine"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["explicit", "summary", "coverability"]);
    let steps: Vec<u64> = engines
        .iter()
        .map(|e| e["steps"].as_u64().unwrap())
        .collect();
    let shortest = *steps.iter().min().unwrap();
    assert!(steps.iter().any(|&s| s > shortest), "{steps:?}");
    let reported: Vec<&serde_json::Value> =
        engines.iter().filter(|e| e["reported"] == true).collect();
    assert_eq!(reported.len(), 1, "{engines:?}");
    assert_eq!(reported[0]["steps"], shortest);
    // the report's trace and path are that engine's
    assert_eq!(
        r["trace"]["steps"].as_array().unwrap().len() as u64,
        shortest
    );
    for e in engines {
        assert_eq!(e["verdict"], "assertion-failed", "{e}");
        assert_eq!(e["exit_code"], 3, "{e}");
        assert!(e["states"].as_u64().unwrap() > 0, "{e}");
    }
    // the text report and `-q --stats` show the table
    for args in [vec![], vec!["-q", "--stats"]] {
        let mut all = vec!["check", p, "--engine", "all"];
        all.extend(args);
        let text = out(&zingrs(&all));
        let rows: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("Engines"))
            .skip(1)
            .take(3)
            .collect();
        assert_eq!(rows.len(), 3, "{text}");
        assert!(
            rows[2].starts_with("  * coverability  assertion-failed  4 steps"),
            "{text}"
        );
        assert!(rows[0].starts_with("    explicit"), "{text}");
        assert!(rows.iter().all(|r| r.ends_with(" states")), "{text}");
    }
}

/// A program that starts threads in a loop, safe for any number of them: under `--threads`
/// the explicit and summary engines are cut by the bound, the coverability engine proves it.
const FLAGS: &str = "decl f1, f2;
void clearer() begin
  f2 := F;
  assert(f1);
end
void main() begin
  f1 := T;
  f2 := T;
  while (*) do
    start_thread clearer();
  od
end
";

#[test]
fn engine_all_gives_the_proof_over_a_bound() {
    let path = model("proof.bp", FLAGS);
    let p = path.to_str().unwrap();
    let o = zingrs(&[
        "check",
        p,
        "--engine",
        "all",
        "--threads",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let r = json(&o);
    assert_eq!(r["verdict"]["kind"], "passed");
    let row = |name: &str| engine_row(&r, name);
    assert_eq!(row("explicit")["verdict"], "bounded");
    assert_eq!(row("explicit")["limit"], "thread bound (--threads 2)");
    assert_eq!(row("coverability")["verdict"], "passed");
    assert_eq!(row("coverability")["reported"], true);
}

/// One engine running out of memory stops alone: the summary engine keeps a summary of `f`
/// for each of its 300,000 arguments (860 MB without a limit), the explicit engine a
/// fingerprint per state (30 MB).
#[test]
fn engine_all_keeps_the_answers_of_engines_within_the_memory_limit() {
    let path = model(
        "memory.zing",
        "class Main { static int x;
  static int f(int a) { int b; b = a + 1; return b; }
  activate static void main() { while (x < 300000) { x = f(x); } assert(x == 300000); }
};
",
    );
    let p = path.to_str().unwrap();
    let o = zingrs(&[
        "check", p, "--engine", "all", "--memory", "150", "--format", "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let r = json(&o);
    assert_eq!(r["verdict"]["kind"], "passed");
    let row = |name: &str| engine_row(&r, name);
    assert_eq!(row("explicit")["verdict"], "passed");
    assert_eq!(row("explicit")["reported"], true);
    assert_eq!(row("summary")["verdict"], "limit-reached");
    assert_eq!(row("summary")["limit"], "memory limit");
}
