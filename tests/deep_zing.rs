//! Zing models whose expressions and blocks nest 5,000 levels deep are checked end to end
//! (the parser once refused more than 400 levels), with verdicts derived by hand.

use std::process::Output;

mod common {
    pub mod run;
    pub mod schema;
}

fn check_stdin(args: &[&str], model: &str) -> Output {
    common::run::with_stdin(&[&["check", "-", "--lang", "zing"], args].concat(), model)
}

fn in_main(body: &str) -> String {
    format!("class Main {{\n    activate static void main() {{\n        int x = 0;\n        {body}\n    }}\n}};\n")
}

const N: usize = 5_000;

#[test]
fn a_5000_deep_expression_is_checked() {
    // 1 + (1 + (… (1 + 0) …)) with N ones is N; so is the left-nested 1 + 1 + … + 1
    let right = format!("{}0{}", "1 + (".repeat(N), ")".repeat(N));
    let left = vec!["1"; N].join(" + ");
    for value in [&right, &left] {
        for (expected, code) in [(N, 0), (N - 1, 3)] {
            let model = in_main(&format!("x = {value};\n        assert(x == {expected});"));
            for engine in ["explicit", "summary"] {
                let o = check_stdin(&["--engine", engine, "-q"], &model);
                assert_eq!(
                    o.status.code(),
                    Some(code),
                    "x == {expected}, {engine}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
    // the whole pipeline: the trace printed as text and as JSON
    let model = in_main(&format!("x = {right};\n        assert(x == {});", N - 1));
    for format in ["text", "json"] {
        let o = check_stdin(&["--format", format], &model);
        assert_eq!(o.status.code(), Some(3), "{format}");
    }
}

#[test]
fn statements_in_5000_nested_blocks_are_checked() {
    for (expected, code) in [(1, 0), (2, 3)] {
        let model = in_main(&format!(
            "x = 1;\n        {}assert(x == {expected});{}",
            "{ ".repeat(N),
            " }".repeat(N)
        ));
        for engine in ["explicit", "summary"] {
            let o = check_stdin(&["--engine", engine, "-q"], &model);
            assert_eq!(o.status.code(), Some(code), "{engine}");
        }
    }
    // while (x < 1) nested N deep: each loop body runs once (x becomes 1 in the innermost)
    let model = in_main(&format!(
        "{}x = x + 1;\n        assert(x == 1);",
        "while (x < 1) ".repeat(N)
    ));
    let o = check_stdin(&["-q"], &model);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
