//! Counterexamples as a user reads them (issue 35): thread numbers that stay the same for a
//! whole trace, values in source terms, bounded JSON reports, and `--engine all`'s table.

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{err, out, zingrs};

/// Writes `text` to a fresh file named `name` in a directory of its own.
fn model(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
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
