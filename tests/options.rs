//! Numeric options are validated by the argument parser: a clear message and exit 7, never a
//! panic (`--timeout 1e30` used to overflow the conversion to a `Duration`).

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::zingrs;

const FIG1: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/bebop-fig1.bp");

/// Runs `check FIG1 OPT VALUE` and asserts a usage error that names the option.
fn rejected(opt: &str, value: &str) {
    // `--opt=value`, so that a negative number reaches the option's parser
    let o = zingrs(&["check", FIG1, &format!("{opt}={value}")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(7), "{opt} {value}: {err}");
    assert!(
        err.contains(opt),
        "{opt} {value}: the message names the option: {err}"
    );
    assert!(!err.contains("panicked"), "{opt} {value}: {err}");
}

#[test]
fn out_of_range_numbers_are_usage_errors() {
    for v in ["1e30", "-1", "NaN", "inf", "abc", "1e10"] {
        rejected("--timeout", v);
    }
    for v in ["0", "-5", "1e3", "99999999999999999999", "x"] {
        rejected("--memory", v);
    }
    for v in ["0", "-1", "4294967296"] {
        rejected("--max-depth", v);
    }
    for v in ["0", "-1", "1.5"] {
        rejected("--max-states", v);
    }
    for v in ["-1", "4294967296"] {
        rejected("--contexts", v);
    }
}

#[test]
fn reasonable_numbers_are_accepted() {
    let o = zingrs(&[
        "check",
        FIG1,
        "--timeout",
        "1000000",
        "--memory",
        "4096",
        "--max-depth",
        "50",
        "--max-states",
        "1000000",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = zingrs(&["check", FIG1, "--timeout", "0.5"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn other_subcommands_validate_their_numbers() {
    let o = zingrs(&["regress", FIG1, "--timeout", "1e30"]);
    assert_eq!(
        o.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = zingrs(&["regress", FIG1, "--jobs", "0"]);
    assert_eq!(
        o.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = zingrs(&["bench", "bebop-t", "--sizes", "1", "--timeout=-3"]);
    assert_eq!(
        o.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = zingrs(&["bench", "bebop-t", "--sizes", "1", "--repeat", "0"]);
    assert_eq!(
        o.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A regression header is parsed by the same parser: a huge timeout there is reported as bad
/// options of that model, not a panic of the whole run.
#[test]
fn a_huge_timeout_in_a_regression_header_is_not_a_panic() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("huge.bp");
    std::fs::write(
        &model,
        "// expect: passed\n// options: --timeout 1e30\nvoid main() begin skip; end\n",
    )
    .unwrap();
    let o = zingrs(&["regress", model.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(o.status.code(), Some(101), "{out}{err}");
    assert!(
        format!("{out}{err}").contains("--timeout"),
        "the bad option is named: {out}{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
